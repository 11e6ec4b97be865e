import ArgumentParser
import Foundation
import PipelineEngine

/// Where downloads may connect: the SSRF guard's settings, shared by
/// `worker` and `warm`. By default only public addresses are reached.
struct NetworkOptions: ParsableArguments {
    @Option(name: .customLong("allow-host"), help: ArgumentHelp(
        "A host (as written in URLs) downloads may reach wherever it resolves, e.g. a private origin; repeatable (env WARMER_ALLOW_HOSTS, comma-separated).",
        valueName: "host"))
    var allowedHosts: [String] = []

    @Option(name: .customLong("allow-network"), help: ArgumentHelp(
        "A network (CIDR) downloads may reach, e.g. 10.20.0.0/16; repeatable (env WARMER_ALLOW_NETWORKS, comma-separated).",
        valueName: "cidr"))
    var allowedNetworks: [String] = []

    @Flag(help: "Allow every private, loopback and link-local address (env WARMER_ALLOW_PRIVATE_NETWORKS=1).")
    var allowPrivateNetworks = false

    func validate() throws {
        for network in networks() where IPNetwork(network) == nil {
            throw ValidationError("Not a network in CIDR notation: '\(network)'")
        }
    }

    /// The policy the flags and the environment describe.
    var addressPolicy: AddressPolicy {
        let environment = ProcessInfo.processInfo.environment
        var policy = AddressPolicy()
        policy.allowsPrivateNetworks = allowPrivateNetworks || environment["WARMER_ALLOW_PRIVATE_NETWORKS"] == "1"
        policy.allowedHosts = Set((allowedHosts + Self.list(environment["WARMER_ALLOW_HOSTS"])).map { $0.lowercased() })
        policy.allowedNetworks = networks().compactMap(IPNetwork.init)
        return policy
    }

    /// The default loader configuration with this address policy.
    var loaderConfiguration: DataLoader.Configuration {
        var configuration = DataLoader.Configuration()
        configuration.addressPolicy = addressPolicy
        return configuration
    }

    private func networks() -> [String] {
        allowedNetworks + Self.list(ProcessInfo.processInfo.environment["WARMER_ALLOW_NETWORKS"])
    }

    private static func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
