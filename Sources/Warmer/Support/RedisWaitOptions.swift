import ArgumentParser

/// `--redis-wait`, shared by every command that talks to Redis (`worker`
/// waits that long at start only, then for as long as it runs).
struct RedisWaitOptions: SettingFlags {
    @Option(name: Settings.redisWait.info.argumentName, help: Settings.redisWait.info.argumentHelp)
    var seconds: String?

    var givenFlags: GivenFlags {
        GivenFlags().with(Settings.redisWait, seconds)
    }
}
