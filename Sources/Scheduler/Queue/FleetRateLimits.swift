/// The rate limits every worker of a queue shares, held in Redis
/// (rate-permit.lua): downloads per second in total and per host, with
/// per-host overrides for origins that allow more (or less).
public struct FleetRateLimits: Sendable, Hashable {
    /// Downloads per second of the whole fleet; nil for no global limit.
    public var global: Double?
    /// Downloads per second to one host; nil for no per-host limit.
    public var perHost: Double?
    /// Per-second limits of particular hosts (lowercased), instead of `perHost`.
    public var hostOverrides: [String: Double]

    /// Limits; the default is none.
    public init(global: Double? = nil, perHost: Double? = nil, hostOverrides: [String: Double] = [:]) {
        self.global = global
        self.perHost = perHost
        self.hostOverrides = hostOverrides
    }

    /// Whether no download is ever limited.
    public var isUnlimited: Bool { global == nil && perHost == nil && hostOverrides.isEmpty }

    /// `host`'s limit: its override, else `perHost`.
    public func limit(forHost host: String) -> Double? { hostOverrides[host] ?? perHost }

    /// Whether a download from `host` needs a permit at all.
    public func limits(host: String) -> Bool { global != nil || limit(forHost: host) != nil }

    /// The shortest spacing the limits that apply to `host` keep between two
    /// downloads: the interval of the faster of the global and the host
    /// limit; nil when neither applies.
    public func spacing(host: String) -> Duration? {
        let intervals = [Self.interval(global), Self.interval(limit(forHost: host))].filter { $0 > 0 }
        return intervals.min().map { .microseconds($0) }
    }

    /// Microseconds between two downloads at `rate` per second (0: no limit).
    static func interval(_ rate: Double?) -> Int64 {
        guard let rate, rate > 0, rate.isFinite else { return 0 }
        return max(1, Int64((1_000_000 / rate).rounded()))
    }
}
