/// The clock a worker's timers run on: the grace period of a drain, the
/// time limit of each job, the heartbeat's beats and the cache folder's
/// re-checks.
///
/// `ContinuousClock` in production. A test gives the worker a clock it moves
/// by hand, so it can tell what happens just before and at the end of a
/// 30-second grace period without waiting for one. The instants are
/// `ContinuousClock`'s, so a worker keeps one kind of instant whatever its clock.
///
/// What watches the worker from outside stays on real time: the lease
/// keeper's thread (a lease expires in Redis's time), the liveness of its
/// loops (`/healthz`, the systemd watchdog) and the metrics' durations.
package protocol WorkerClock: Clock where Instant == ContinuousClock.Instant {}

extension ContinuousClock: WorkerClock {}
