import PipelineEngine

/// The downloads the settings describe.
extension ResolvedSettings {
    /// Where downloads may connect.
    var addressPolicy: AddressPolicy {
        var policy = AddressPolicy()
        policy.allowsPrivateNetworks = self[Settings.allowPrivateNetworks]
        policy.allowedHosts = Set(self[Settings.allowHosts].map { $0.lowercased() })
        policy.allowedNetworks = self[Settings.allowNetworks].compactMap(IPNetwork.init)
        return policy
    }

    /// The loader configuration the settings describe.
    ///
    /// - Parameter defaultConnectionsPerHost: used when `connections-per-host` is not set.
    func loaderConfiguration(defaultConnectionsPerHost: Int = 16) -> DataLoader.Configuration {
        var configuration = DataLoader.Configuration()
        configuration.addressPolicy = addressPolicy
        configuration.maximumConnectionsPerHost = self[Settings.connectionsPerHost] ?? defaultConnectionsPerHost
        configuration.lowSpeedLimit = self[Settings.lowSpeedLimit]
        configuration.lowSpeedTime = .seconds(self[Settings.lowSpeedTime])
        for header in self[Settings.headers] {
            if let field = Settings.headerField(header) { configuration.additionalHeaders[field.name] = field.value }
        }
        return configuration
    }

    /// The most a job (warm: a URL) may take, `job-timeout`.
    var jobTimeout: Duration { .seconds(self[Settings.jobTimeout]) }
}
