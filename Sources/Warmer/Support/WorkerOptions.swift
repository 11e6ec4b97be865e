import ArgumentParser

/// `worker`'s own flags: its slots, its drain, its cache sweeps, its HTTP server.
struct WorkerOptions: SettingFlags {
    @Option(name: Settings.concurrency.info.argumentName, help: Settings.concurrency.info.argumentHelp)
    var concurrency: String?

    @Option(name: Settings.gracePeriod.info.argumentName, help: Settings.gracePeriod.info.argumentHelp)
    var gracePeriod: String?

    @Option(name: Settings.cacheSweepInterval.info.argumentName, help: Settings.cacheSweepInterval.info.argumentHelp)
    var cacheSweepInterval: String?

    @Option(name: Settings.httpPort.info.argumentName, help: Settings.httpPort.info.argumentHelp)
    var httpPort: String?

    @Option(name: Settings.httpHost.info.argumentName, help: Settings.httpHost.info.argumentHelp)
    var httpHost: String?

    var givenFlags: GivenFlags {
        GivenFlags()
            .with(Settings.concurrency, concurrency)
            .with(Settings.gracePeriod, gracePeriod)
            .with(Settings.cacheSweepInterval, cacheSweepInterval)
            .with(Settings.httpPort, httpPort)
            .with(Settings.httpHost, httpHost)
    }
}
