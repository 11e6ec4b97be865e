import WarmerSupport

/// A token bucket: holds up to `burst` tokens and gains `rate` tokens a
/// second; a request takes one whole token.
///
/// A plain value with no clock inside: every method that depends on time
/// takes the current instant, and the bucket refills by the time elapsed
/// since it was last brought up to date (`updatedAt`). Instants must not go
/// backwards between calls; an earlier instant is treated as `updatedAt`.
///
/// `updatedAt` may lie in the future: the bucket is then *held* (see
/// `hold(until:now:)`) and neither gains nor gives tokens before that instant.
///
/// Tokens are fractional. A bucket counts as holding a token from
/// `1 - tolerance` on, so that waking up at `nextTokenTime` (rounded up to
/// the nanosecond) always finds the token despite floating-point rounding.
struct TokenBucket: Sendable, Hashable {
    /// Tokens gained per second (above 0).
    private(set) var rate: Double
    /// The most tokens the bucket holds (at least 1).
    let burst: Int
    /// Tokens held as of `updatedAt`, 0…`burst`.
    private(set) var tokens: Double
    /// The instant `tokens` is up to date at.
    private(set) var updatedAt: ContinuousClock.Instant

    /// How far below a whole token still counts as one.
    static let tolerance = 1e-9

    /// A full bucket as of `now`.
    init(rate: Double, burst: Int, now: ContinuousClock.Instant) {
        precondition(rate > 0 && burst >= 1, "a token bucket needs a positive rate and a burst of at least 1")
        self.rate = rate
        self.burst = burst
        self.tokens = Double(burst)
        self.updatedAt = now
    }

    /// A full bucket for `limit` as of `now`.
    init(_ limit: RateLimit, now: ContinuousClock.Instant) {
        self.init(rate: limit.effectiveRate, burst: limit.effectiveBurst, now: now)
    }

    /// Adds the tokens gained between `updatedAt` and `now`, up to `burst`.
    /// Does nothing while the bucket is held (`now` before `updatedAt`).
    mutating func refill(at now: ContinuousClock.Instant) {
        guard now > updatedAt else { return }
        tokens = min(Double(burst), tokens + rate * updatedAt.duration(to: now).seconds)
        updatedAt = now
    }

    /// Whether a token can be taken at `now` (after `refill(at: now)`).
    func hasToken(at now: ContinuousClock.Instant) -> Bool {
        now >= updatedAt && tokens >= 1 - Self.tolerance
    }

    /// Takes a token if there is one at `now`. Refills first.
    mutating func take(at now: ContinuousClock.Instant) -> Bool {
        refill(at: now)
        guard hasToken(at: now) else { return false }
        tokens = max(0, tokens - 1)
        return true
    }

    /// Whether the bucket is held at `now` (see `hold(until:now:)`).
    func isHeld(at now: ContinuousClock.Instant) -> Bool { now < updatedAt }

    /// Whether the bucket is full and not held at `now` (after `refill(at: now)`):
    /// it is then the same as a new bucket, and can be dropped.
    func isFull(at now: ContinuousClock.Instant) -> Bool {
        now >= updatedAt && tokens >= Double(burst) - Self.tolerance
    }

    /// The earliest instant a token is available, assuming none is taken
    /// meanwhile: `updatedAt` if one is, else when refilling completes one
    /// (rounded up to the nanosecond).
    var nextTokenTime: ContinuousClock.Instant {
        guard tokens < 1 - Self.tolerance else { return updatedAt }
        let nanoseconds = ((1 - tokens) / rate * 1e9).rounded(.up)
        // Beyond ~292 years Int64 overflows: such a wait is "never" in practice.
        return updatedAt + .nanoseconds(Int64(min(nanoseconds, 9e18)))
    }

    /// Changes the rate from `now` on: tokens gained until `now` count at the old rate.
    mutating func setRate(_ newRate: Double, at now: ContinuousClock.Instant) {
        precondition(newRate > 0, "a token bucket needs a positive rate")
        refill(at: now)
        rate = newRate
    }

    /// Empties the bucket at `now`: the next token comes a full interval
    /// (`1 / rate`) later, or that long after the end of a hold.
    mutating func empty(at now: ContinuousClock.Instant) {
        refill(at: now)
        tokens = 0
    }

    /// Holds the bucket until `end`: no token before it, then one token at
    /// `end` (one request may go), refilling at `rate` from there. A hold
    /// that ends no later than a current one changes nothing; one that has
    /// already ended only empties the bucket down to one token.
    mutating func hold(until end: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        refill(at: now)
        guard end > updatedAt else {
            tokens = min(tokens, 1)
            return
        }
        updatedAt = end
        tokens = 1
    }
}
