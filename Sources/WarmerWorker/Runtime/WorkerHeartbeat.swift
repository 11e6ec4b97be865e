import Logging
import Scheduler
import ServiceLifecycle
import WarmerSupport

/// Keeps this worker's record in the queue's worker registry: beats every
/// third of a lease period until a graceful shutdown or cancellation, then
/// removes the record.
///
/// A record lives for one lease period after its last beat, so a worker
/// that dies (SIGKILL, a lost host) drops out of `warmer workers` within a
/// lease; a clean exit removes it at once. In a `ServiceGroup`, list this
/// service before the worker's claim loop: services shut down in reverse
/// order, so the record stays while running jobs drain and goes when the
/// worker is done. A beat that fails (Redis unreachable) is logged and
/// tried again at the next tick.
struct WorkerHeartbeat: Service {
    let source: any WorkSource
    let identity: WorkerIdentity
    /// What the worker is doing now, read before every beat.
    let load: @Sendable () async -> WorkerLoad
    /// What the beats are timed on.
    let clock: any TimerClock
    let logger: Logger

    /// Time between beats: a third of the lease, so two beats may be lost
    /// before the record lapses.
    var interval: Duration { source.leaseDuration / 3 }

    init(source: any WorkSource, identity: WorkerIdentity, clock: any TimerClock, logger: Logger,
         load: @escaping @Sendable () async -> WorkerLoad) {
        self.source = source
        self.identity = identity
        self.clock = clock
        self.logger = logger
        self.load = load
    }

    /// Beats until a graceful shutdown or cancellation, then removes the record.
    func run() async throws {
        try? await cancelWhenGracefulShutdown { [self] in try await beatUntilCancelled() }
        do {
            try await source.removeWorker(identity.id)
        } catch {
            logger.warning("could not remove the worker record; it lapses within a lease",
                           metadata: ["worker": "\(identity.id)", "error": "\(error)"])
        }
    }

    private func beatUntilCancelled() async throws {
        var startedAt: Int?
        var failing = false
        while true {
            do {
                startedAt = try await source.beat(identity, load: await load(), startedAt: startedAt)
                if failing { logger.info("worker heartbeat restored", metadata: ["worker": "\(identity.id)"]) }
                failing = false
            } catch {
                if !failing {
                    logger.warning("worker heartbeat failed, retrying",
                                   metadata: ["worker": "\(identity.id)", "error": "\(error)"])
                }
                failing = true
            }
            try await clock.sleep(for: interval)
        }
    }
}
