import Foundation
import TestSupport
@testable import PipelineEngine

/// The test origin listens on loopback, which the SSRF guard refuses by
/// default: tests allow exactly its host, as a deployment would for an
/// on-premise origin.
extension DataLoader.Configuration {
    /// The default configuration, plus the test origin's host.
    static var testOrigin: Self {
        var configuration = Self()
        configuration.addressPolicy.allowedHosts = [(try? TestEnvironment.originURL().host) ?? "127.0.0.1"]
        return configuration
    }
}

extension DataLoader {
    /// A loader that may reach the test origin.
    static let testOrigin = DataLoader(configuration: .testOrigin)
}
