import ArgumentParser

/// `--config`, `--log-format` and `--log-level`, which every command takes.
struct GeneralOptions: SettingFlags {
    @Option(name: Settings.config.info.argumentName, help: Settings.config.info.argumentHelp)
    var config: String?

    @Option(name: Settings.logFormat.info.argumentName, help: Settings.logFormat.info.argumentHelp)
    var logFormat: String?

    @Option(name: Settings.logLevel.info.argumentName, help: Settings.logLevel.info.argumentHelp)
    var logLevel: String?

    var givenFlags: GivenFlags {
        GivenFlags()
            .with(Settings.config, config)
            .with(Settings.logFormat, logFormat)
            .with(Settings.logLevel, logLevel)
    }
}
