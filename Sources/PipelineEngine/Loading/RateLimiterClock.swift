/// The time source of a `RateLimiter`, injectable for tests.
protocol RateLimiterClock: Sendable {
    /// Monotonic now.
    var now: ContinuousClock.Instant { get }
    /// Sleeps until `deadline` (returns at once if it has passed); throws
    /// `CancellationError` when the calling task is cancelled.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}
