/// The real time source: `ContinuousClock`.
struct ContinuousRateLimiterClock: RateLimiterClock {
    /// The clock.
    init() {}

    /// `ContinuousClock.now`.
    var now: ContinuousClock.Instant { .now }

    /// `Task.sleep(until:clock:)` on the continuous clock.
    func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}
