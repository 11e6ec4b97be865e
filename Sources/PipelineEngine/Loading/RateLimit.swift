/// A token-bucket rate: `requestsPerSecond` sustained, `burst` at once.
///
/// A bucket holds at most `burst` tokens and gains `requestsPerSecond`
/// tokens a second; each request takes one. So after a quiet spell `burst`
/// requests go at once, and then one every `1 / requestsPerSecond` seconds.
///
/// Out-of-range values are not an error: a rate that is not above 0 (or is
/// not a number) is treated as `RateLimit.slowestRate`, one above
/// `RateLimit.fastestRate` as that, and a burst below 1 as 1.
public struct RateLimit: Sendable, Hashable {
    /// Tokens gained per second: the sustained request rate.
    public var requestsPerSecond: Double
    /// The most tokens the bucket holds: requests allowed at once.
    public var burst: Int

    /// A rate of `requestsPerSecond`, with up to `burst` requests at once.
    public init(requestsPerSecond: Double, burst: Int) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
    }

    /// The slowest rate used: one request every 1000 s.
    static let slowestRate = 0.001
    /// The fastest rate used: a billion requests a second.
    static let fastestRate = 1e9

    /// `requestsPerSecond`, clamped to `slowestRate…fastestRate`.
    var effectiveRate: Double { Self.clampedRate(requestsPerSecond) }
    /// `burst`, at least 1.
    var effectiveBurst: Int { max(1, burst) }

    /// `rate` clamped to `slowestRate…fastestRate`; not-a-number is `slowestRate`.
    static func clampedRate(_ rate: Double) -> Double {
        guard !rate.isNaN else { return slowestRate }
        return min(max(rate, slowestRate), fastestRate)
    }
}
