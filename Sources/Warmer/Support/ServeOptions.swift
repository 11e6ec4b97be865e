import ArgumentParser

/// `serve`'s own flags: where it listens and its limits. Its tokens have no
/// flag (a process listing would show them): `WARMER_READ_TOKENS`,
/// `WARMER_ADMIN_TOKENS` or the config file.
struct ServeOptions: SettingFlags {
    @Option(name: Settings.httpPort.info.argumentName, help: Settings.httpPort.info.argumentHelp)
    var httpPort: String?

    @Option(name: Settings.httpHost.info.argumentName, help: Settings.httpHost.info.argumentHelp)
    var httpHost: String?

    @Option(name: Settings.corsOrigins.info.argumentName, help: Settings.corsOrigins.info.argumentHelp)
    var corsOrigins: [String] = []

    @Option(name: Settings.maxBody.info.argumentName, help: Settings.maxBody.info.argumentHelp)
    var maxBody: String?

    @Option(name: Settings.maxEventStreams.info.argumentName, help: Settings.maxEventStreams.info.argumentHelp)
    var maxEventStreams: String?

    @Option(name: Settings.eventKeepAlive.info.argumentName, help: Settings.eventKeepAlive.info.argumentHelp)
    var eventKeepAlive: String?

    @Option(name: Settings.requestTimeout.info.argumentName, help: Settings.requestTimeout.info.argumentHelp)
    var requestTimeout: String?

    @Option(name: Settings.maxEventStreamsPerToken.info.argumentName, help: Settings.maxEventStreamsPerToken.info.argumentHelp)
    var maxEventStreamsPerToken: String?

    @Option(name: Settings.warmConcurrency.info.argumentName, help: Settings.warmConcurrency.info.argumentHelp)
    var warmConcurrency: String?

    @Option(name: Settings.aging.info.argumentName, help: Settings.aging.info.argumentHelp)
    var aging: String?

    @Option(name: Settings.groupBurst.info.argumentName, help: Settings.groupBurst.info.argumentHelp)
    var groupBurst: String?

    @Option(name: Settings.retention.info.argumentName, help: Settings.retention.info.argumentHelp)
    var retention: String?

    var givenFlags: GivenFlags {
        GivenFlags()
            .with(Settings.httpPort, httpPort)
            .with(Settings.httpHost, httpHost)
            .with(Settings.corsOrigins, corsOrigins)
            .with(Settings.maxBody, maxBody)
            .with(Settings.maxEventStreams, maxEventStreams)
            .with(Settings.eventKeepAlive, eventKeepAlive)
            .with(Settings.requestTimeout, requestTimeout)
            .with(Settings.maxEventStreamsPerToken, maxEventStreamsPerToken)
            .with(Settings.warmConcurrency, warmConcurrency)
            .with(Settings.aging, aging)
            .with(Settings.groupBurst, groupBurst)
            .with(Settings.retention, retention)
    }
}
