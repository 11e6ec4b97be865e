import WarmerSupport

/// When a job that failed with a transient error runs again.
///
/// The pipeline already retries a download a few times within one attempt;
/// this policy spaces out whole attempts, for failures that outlast those
/// (an origin down for minutes). Exponential backoff with equal jitter:
/// attempt `n` waits between half and all of `base × 2^(n-1)`, capped.
public struct JobRetryPolicy: Sendable, Hashable {
    /// Attempts a job gets in total, the first included. 1 disables retries. Default: 3.
    public var maximumAttempts = 3
    /// The wait after the first failed attempt. Default: 5 s.
    public var baseDelay: Duration = .seconds(5)
    /// The longest wait. Default: 5 min.
    public var maximumDelay: Duration = .seconds(300)

    /// Creates the default policy.
    public init() {}

    /// The wait before the attempt after `attempt` (1 for the first), or
    /// `nil` when `attempt` was the last.
    public func delay(afterAttempt attempt: Int, random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }) -> Duration? {
        guard attempt < maximumAttempts else { return nil }
        // (`attempt - 1` would overflow for Int.min, which a job hash could hold.)
        let growth = Double(1 << (attempt <= 1 ? 0 : min(attempt - 1, 30)))
        let full = min(Double(maximumDelay.milliseconds), Double(baseDelay.milliseconds) * growth)
        return .milliseconds(Int(full / 2 + random(0...(full / 2))))
    }
}
