import ArgumentParser

/// `--redis-url` (or `--redis`) and `--queue`, shared by every command that talks to Redis.
struct RedisOptions: SettingFlags {
    @Option(name: Settings.redisURL.info.argumentName, help: Settings.redisURL.info.argumentHelp)
    var redisURL: String?

    @Option(name: Settings.queue.info.argumentName, help: Settings.queue.info.argumentHelp)
    var queue: String?

    var givenFlags: GivenFlags {
        GivenFlags().with(Settings.redisURL, redisURL).with(Settings.queue, queue)
    }
}
