/// How downloads are paced. Both limits optional; nil = unlimited.
///
/// A download needs a token from the global bucket (when `global` is set)
/// and one from its host's bucket (when `perHost` is set, or while the host
/// is slowed down). A host that answers 429 or 503 is slowed down
/// (`slowdownFactor`, `minimumHostRate`), and recovers step by step with
/// each success (`recoveryStep`). See `RateLimiter` for the exact rules.
public struct RateLimiterConfiguration: Sendable, Hashable {
    /// The rate all downloads share. Default: nil, unlimited.
    public var global: RateLimit?
    /// The rate of each host (as written in the URL, lowercased by the
    /// caller). Default: nil, unlimited.
    public var perHost: RateLimit?
    /// The rates of particular hosts (lowercased), instead of `perHost`:
    /// origins that allow more, or less. Default: none.
    public var hostOverrides: [String: RateLimit] = [:]
    /// When a host answers 429 or 503, its rate is multiplied by this
    /// (default 0.5), down to `minimumHostRate` (default 0.5 req/s).
    /// Clamped to 0…1 (0: straight to the minimum; 1: no slowdown, only
    /// Retry-After is honoured); not-a-number is the default.
    public var slowdownFactor: Double
    /// The rate a slowdown never goes below (but never above the host's own
    /// rate either). Clamped like `RateLimit.requestsPerSecond`.
    public var minimumHostRate: Double

    /// The rate a host without a per-host limit is assumed to have when it
    /// is first slowed down, and recovers to before its bucket is removed:
    /// 10 req/s.
    public static let defaultHostRate = 10.0

    /// A configuration; the defaults are unlimited, halving on 429/503,
    /// down to 0.5 req/s.
    ///
    /// After a slowdown the host's rate recovers gradually: each successful
    /// request adds `recoveryStep` (10% of the configured per-host rate, or
    /// of 10 req/s when perHost is nil) until it is back at its configured
    /// rate (or unlimited).
    public init(
        global: RateLimit? = nil, perHost: RateLimit? = nil, slowdownFactor: Double = 0.5, minimumHostRate: Double = 0.5
    ) {
        self.global = global
        self.perHost = perHost
        self.slowdownFactor = slowdownFactor
        self.minimumHostRate = minimumHostRate
    }

    /// Whether neither a global nor a per-host limit is set. Hosts can still
    /// be slowed down (and are then limited until they recover).
    public var isUnlimited: Bool { global == nil && perHost == nil && hostOverrides.isEmpty }

    /// `host`'s own limit: its override, else `perHost`; nil for none.
    func hostLimit(_ host: String) -> RateLimit? { hostOverrides[host] ?? perHost }

    /// What each successful request adds to a slowed-down host's rate: 10%
    /// of the configured per-host rate, or of `defaultHostRate` when
    /// `perHost` is nil.
    public var recoveryStep: Double { (perHost?.effectiveRate ?? Self.defaultHostRate) * 0.1 }

    /// `recoveryStep` for `host`, from its own limit (override included).
    func recoveryStep(forHost host: String) -> Double { hostTargetRate(host) * 0.1 }

    /// The rate a host returns to once it has recovered: its own limit
    /// (override or per-host rate), or `defaultHostRate` (after which its
    /// bucket is removed) without one.
    func hostTargetRate(_ host: String) -> Double { hostLimit(host)?.effectiveRate ?? Self.defaultHostRate }

    /// `slowdownFactor`, clamped to 0…1 (not-a-number: 0.5).
    var effectiveSlowdownFactor: Double {
        slowdownFactor.isNaN ? 0.5 : min(max(slowdownFactor, 0), 1)
    }

    /// `minimumHostRate`, clamped like a `RateLimit` rate.
    var effectiveMinimumHostRate: Double { RateLimit.clampedRate(minimumHostRate) }
}
