import Logging
import Scheduler
import WarmerSupport

/// Rides out a Redis that is briefly unavailable: unreachable, restarting,
/// loading its data (`LOADING`), running a long script (`BUSY`), or
/// answering `TRYAGAIN` or `MASTERDOWN`. Waits with `Backoff` (100 ms
/// doubling to 5 s) for at most `limit` of one continuous outage, logging
/// each wait.
///
/// One-shot commands run their Redis calls through `run`; `watch` keeps one
/// across its reads and resets it after each success.
struct RedisPatience: Sendable {
    /// The longest one outage is waited out.
    let limit: Duration
    private var backoff = Backoff()
    private var outageStart: ContinuousClock.Instant?
    private let logger = Logger(label: "warmer.redis")

    init(limit: Duration) {
        self.limit = limit
    }

    /// After a success: the next failure starts a new outage.
    mutating func reset() {
        backoff.reset()
        outageStart = nil
    }

    /// After a failure: when `error` is transient (and, for an operation
    /// that is not `idempotent`, Redis certainly did not run it) and the
    /// outage has not lasted `limit` yet, logs, waits and returns true.
    /// Returns false at once otherwise: the caller fails with `error`.
    mutating func waitToRetry(after error: SchedulerError, idempotent: Bool = true) async -> Bool {
        guard error.isTransient, idempotent || error.didNotRun else { return false }
        let start = outageStart ?? .now
        outageStart = start
        guard ContinuousClock.now + backoff.delay - start <= limit else { return false }
        logger.warning("Redis unavailable, retrying", metadata: [
            "error": .string(error.description), "in": .string("\(backoff.delay)"),
        ])
        await backoff.wait()
        return true
    }

    /// Runs `operation` until it succeeds, fails for good, or the outage outlasts `limit`.
    /// - Parameter idempotent: false for an operation that must not run
    ///   twice (`enqueue`): it is tried again only when Redis certainly did
    ///   not run it (`SchedulerError.didNotRun`), never after a connection
    ///   broke with it in flight.
    func run<Value>(
        idempotent: Bool = true, _ operation: () async throws(SchedulerError) -> Value
    ) async throws(SchedulerError) -> Value {
        var patience = self
        while true {
            do {
                return try await operation()
            } catch {
                guard await patience.waitToRetry(after: error, idempotent: idempotent) else { throw error }
            }
        }
    }
}
