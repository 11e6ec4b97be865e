import ArgumentParser

/// `--cache-dir` and `--cache-size-limit`, shared by the commands that use the disk cache.
struct CacheOptions: SettingFlags {
    @Option(name: Settings.cacheDir.info.argumentName, help: Settings.cacheDir.info.argumentHelp)
    var cacheDir: String?

    @Option(name: Settings.cacheSizeLimit.info.argumentName, help: Settings.cacheSizeLimit.info.argumentHelp)
    var cacheSizeLimit: String?

    var givenFlags: GivenFlags {
        GivenFlags().with(Settings.cacheDir, cacheDir).with(Settings.cacheSizeLimit, cacheSizeLimit)
    }
}
