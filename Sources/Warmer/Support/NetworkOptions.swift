import ArgumentParser
import Foundation
import PipelineEngine
import Scheduler

/// How downloads behave on the network, shared by `worker` and `warm`:
/// where they may connect (the SSRF guard; by default only public
/// addresses), how fast they start, how slow they may be, how long they may
/// take, how often they are retried, and what they send.
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

    @Option(help: ArgumentHelp("Download attempts per job, the first included; transient failures (connection errors, timeouts, 408, 429, 5xx) are retried with backoff and jitter, honouring Retry-After.", valueName: "n"))
    var maxAttempts: Int = 4

    @Option(help: ArgumentHelp("Seconds a worker may spend on a job (warm: on a URL), all its download attempts and the waits between them included; then the job fails for good with deadline_exceeded and frees its slot. An intake document's \"timeout\" overrides it for its jobs.", valueName: "seconds"))
    var jobTimeout: Int = 120

    @Option(help: ArgumentHelp("Bytes per second below which a download is too slow: one that stays below it for --low-speed-time fails with timed_out (and is retried). 0 turns the check off.", valueName: "bytes"))
    var lowSpeedLimit: Int = 1024

    @Option(help: ArgumentHelp("Seconds a download may stay below --low-speed-limit, waiting for the response included.", valueName: "seconds"))
    var lowSpeedTime: Int = 30

    @Option(help: ArgumentHelp("Downloads started per second in total (token bucket, burst of one second's worth); default: unlimited.", valueName: "per-second"))
    var rateLimit: Double?

    @Option(help: ArgumentHelp("Downloads started per second to one host; default: unlimited. A host answering 429 or 503 is slowed down either way.", valueName: "per-second"))
    var hostRateLimit: Double?

    @Option(help: ArgumentHelp("Concurrent connections to one host; default: 16, or the worker's --concurrency when higher.", valueName: "n"))
    var connectionsPerHost: Int?

    @Option(name: .customLong("header"), help: ArgumentHelp("An extra request header, 'Name: value'; repeatable.", valueName: "header"))
    var headers: [String] = []

    func validate() throws {
        for network in networks() where IPNetwork(network) == nil {
            throw ValidationError("Not a network in CIDR notation: '\(network)'")
        }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        guard JobQueue.timeoutRange.contains(jobTimeout) else {
            throw ValidationError("--job-timeout must be \(JobQueue.timeoutRange.lowerBound)-\(JobQueue.timeoutRange.upperBound) seconds")
        }
        guard lowSpeedLimit >= 0 else { throw ValidationError("--low-speed-limit must be 0 or more") }
        guard lowSpeedTime >= 1 else { throw ValidationError("--low-speed-time must be at least 1 second") }
        for rate in [rateLimit, hostRateLimit].compactMap({ $0 }) where !(rate > 0 && rate <= Self.highestRate) {
            throw ValidationError("A rate limit must be more than 0 and at most \(Int(Self.highestRate)) per second")
        }
        if let connectionsPerHost, connectionsPerHost < 1 { throw ValidationError("--connections-per-host must be at least 1") }
        for header in headers where Self.header(header) == nil {
            throw ValidationError("Not a header ('Name: value'): '\(header)'")
        }
    }

    /// The highest `--rate-limit` and `--host-rate-limit`, per second.
    static let highestRate: Double = 1_000_000

    /// Applies the retry and rate-limit settings to a pipeline configuration.
    func apply(to configuration: inout ImagePipeline.Configuration) {
        configuration.retryPolicy.maximumAttempts = maxAttempts
        configuration.rateLimit.global = rateLimit.map { RateLimit(requestsPerSecond: $0, burst: max(1, Int($0))) }
        configuration.rateLimit.perHost = hostRateLimit.map { RateLimit(requestsPerSecond: $0, burst: max(1, Int($0))) }
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

    /// The loader configuration the flags describe.
    ///
    /// - Parameter defaultConnectionsPerHost: used when `--connections-per-host` is not given.
    func loaderConfiguration(defaultConnectionsPerHost: Int = 16) -> DataLoader.Configuration {
        var configuration = DataLoader.Configuration()
        configuration.addressPolicy = addressPolicy
        configuration.maximumConnectionsPerHost = connectionsPerHost ?? defaultConnectionsPerHost
        configuration.lowSpeedLimit = lowSpeedLimit
        configuration.lowSpeedTime = .seconds(lowSpeedTime)
        for header in headers {
            if let (name, value) = Self.header(header) { configuration.additionalHeaders[name] = value }
        }
        return configuration
    }

    /// `Name: value` split in two; `nil` without a colon or a name.
    private static func header(_ text: String) -> (String, String)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        return (name, text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    private func networks() -> [String] {
        allowedNetworks + Self.list(ProcessInfo.processInfo.environment["WARMER_ALLOW_NETWORKS"])
    }

    private static func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
