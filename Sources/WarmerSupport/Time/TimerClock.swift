/// The clock a component's timers run on, with `ContinuousClock`'s instants:
/// the engine's rate limiter (when a token is due) and the worker (the drain's
/// grace period, each job's time limit, the heartbeat's beats, the cache
/// folder's re-checks).
///
/// `ContinuousClock` in production. A test gives the component a clock it
/// moves by hand (`ManualClock`, Tests/TestSupport), so it can tell what
/// happens a moment before a deadline and at it without waiting for either.
/// The instants are `ContinuousClock`'s whatever the clock, so a component
/// keeps one kind of instant.
public protocol TimerClock: Clock where Instant == ContinuousClock.Instant {}

extension ContinuousClock: TimerClock {}
