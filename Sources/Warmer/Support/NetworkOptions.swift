import ArgumentParser

/// How downloads behave on the network, shared by `worker` and `warm`:
/// where they may connect (the SSRF guard; by default only public
/// addresses), how fast they start, how slow they may be, how long they may
/// take, how often they are retried, and what they send.
struct NetworkOptions: SettingFlags {
    @Option(name: Settings.allowHosts.info.argumentName, help: Settings.allowHosts.info.argumentHelp)
    var allowedHosts: [String] = []

    @Option(name: Settings.allowNetworks.info.argumentName, help: Settings.allowNetworks.info.argumentHelp)
    var allowedNetworks: [String] = []

    @Flag(name: Settings.allowPrivateNetworks.info.argumentName, inversion: .prefixedNo,
          help: Settings.allowPrivateNetworks.info.argumentHelp)
    var allowPrivateNetworks: Bool?

    @Option(name: Settings.maxAttempts.info.argumentName, help: Settings.maxAttempts.info.argumentHelp)
    var maxAttempts: String?

    @Option(name: Settings.jobTimeout.info.argumentName, help: Settings.jobTimeout.info.argumentHelp)
    var jobTimeout: String?

    @Option(name: Settings.lowSpeedLimit.info.argumentName, help: Settings.lowSpeedLimit.info.argumentHelp)
    var lowSpeedLimit: String?

    @Option(name: Settings.lowSpeedTime.info.argumentName, help: Settings.lowSpeedTime.info.argumentHelp)
    var lowSpeedTime: String?

    @Option(name: Settings.rateLimit.info.argumentName, help: Settings.rateLimit.info.argumentHelp)
    var rateLimit: String?

    @Option(name: Settings.hostRateLimit.info.argumentName, help: Settings.hostRateLimit.info.argumentHelp)
    var hostRateLimit: String?

    @Option(name: Settings.hostRateLimitOverrides.info.argumentName, help: Settings.hostRateLimitOverrides.info.argumentHelp)
    var hostRateLimitOverrides: [String] = []

    @Option(name: Settings.connectionsPerHost.info.argumentName, help: Settings.connectionsPerHost.info.argumentHelp)
    var connectionsPerHost: String?

    @Option(name: Settings.headers.info.argumentName, help: Settings.headers.info.argumentHelp)
    var headers: [String] = []

    var givenFlags: GivenFlags {
        GivenFlags()
            .with(Settings.allowHosts, allowedHosts)
            .with(Settings.allowNetworks, allowedNetworks)
            .with(Settings.allowPrivateNetworks, allowPrivateNetworks)
            .with(Settings.maxAttempts, maxAttempts)
            .with(Settings.jobTimeout, jobTimeout)
            .with(Settings.lowSpeedLimit, lowSpeedLimit)
            .with(Settings.lowSpeedTime, lowSpeedTime)
            .with(Settings.rateLimit, rateLimit)
            .with(Settings.hostRateLimit, hostRateLimit)
            .with(Settings.hostRateLimitOverrides, hostRateLimitOverrides)
            .with(Settings.connectionsPerHost, connectionsPerHost)
            .with(Settings.headers, headers)
    }
}
