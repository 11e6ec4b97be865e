import Logging
import PipelineEngine
import Scheduler
import Synchronization
import WarmerSupport

/// The download permits of a worker under the rate limits every worker of
/// its queue shares in Redis (`JobQueue.reserveDownload`, rate-permit.lua),
/// asked by the pipeline after the process's own limiter (the local cap).
///
/// One permit is one round trip (concurrent ones share the Redis client's
/// pipelined round trips): Redis reserves the earliest free slot on its
/// clock and the download sleeps until then. When every slot within the
/// request's horizon (longer for higher priorities, growing as it waits) is
/// taken, nothing is reserved and the request asks again when its horizon
/// would reach a free slot. While Redis does not answer, downloads wait for
/// it (every `redisRetry`) rather than exceed the fleet's limits.
///
/// A download that wakes for its slot *late*, by more than the limits'
/// spacing (a process stalled by CPU throttling, a pause, a host starved
/// for CPU), does not start then: the slots after its own are other
/// downloads', and starting now would put two of them together at the
/// origin, or a stall's worth at once. It gives its slot up and reserves
/// the next free one instead, once per download, so a process that is
/// always late still makes progress (`warmer_fleet_rate_missed_slots_total`).
package final class FleetRateLimiter: DownloadPermits {
    /// How long a download waits before asking again when Redis did not answer.
    static let redisRetry: Duration = .milliseconds(250)

    /// The limits it asks for.
    let limits: FleetRateLimits
    private let slots: any DownloadSlots
    private let clock: any TimerClock
    private let metrics: FleetRateMetrics
    private let logger: Logger
    private let isFailing = Atomic<Bool>(false)

    /// A limiter of downloads under `limits`, whose slots `slots` (the
    /// worker's `JobQueue`) reserves; it sleeps until a slot on `clock`.
    package init(slots: any DownloadSlots, limits: FleetRateLimits, clock: any TimerClock = ContinuousClock(), logger: Logger) {
        self.slots = slots
        self.clock = clock
        self.limits = limits
        self.metrics = FleetRateMetrics(overridden: Set(limits.hostOverrides.keys))
        self.logger = logger
    }

    package func permit(host: String, priority: @escaping @Sendable () -> ImagePriority) async throws(CancellationError) {
        guard let spacing = limits.spacing(host: host) else { return }
        let lateness = Self.lateness(spacing: spacing)
        let start = clock.now
        var mayGiveUpSlot = true
        while true {
            if Task.isCancelled { throw CancellationError() }
            let reservation: DownloadReservation
            do {
                reservation = try await slots.reserveDownload(
                    host: host, band: ImagePriority.veryHigh.rawValue - priority().rawValue, waited: clock.now - start, limits: limits)
            } catch {
                metrics.redisFailed()
                if !isFailing.exchange(true, ordering: .relaxed) {
                    logger.warning("fleet rate limits: Redis did not answer; downloads wait for it", metadata: ["error": "\(error)"])
                }
                try await sleep(Self.redisRetry)
                continue
            }
            if isFailing.exchange(false, ordering: .relaxed) {
                logger.info("fleet rate limits: Redis answers again")
            }
            switch reservation {
            case .granted(let wait):
                if wait > .zero {
                    let slot = clock.now + wait
                    try await sleep(until: slot)
                    if clock.now - slot > lateness, mayGiveUpSlot {
                        mayGiveUpSlot = false
                        metrics.missedSlot(host: host)
                        continue
                    }
                }
                metrics.permitted(host: host, waited: clock.now - start)
                return
            case .refused(let retryIn):
                metrics.refused(host: host)
                try await sleep(max(retryIn, .milliseconds(1)))
            }
        }
    }

    /// How late a download may wake for its slot and still start: the
    /// limits' spacing (at most one slot taken from the next download), and
    /// never less than 10 ms, a busy machine's ordinary timer delay.
    static func lateness(spacing: Duration) -> Duration {
        max(spacing, .milliseconds(10))
    }

    /// Sleeps until `deadline` on the limiter's clock; throws when the task is cancelled.
    private func sleep(until deadline: ContinuousClock.Instant) async throws(CancellationError) {
        do { try await clock.sleep(until: deadline, tolerance: nil) } catch { throw CancellationError() }
    }

    /// Sleeps for `duration` on the limiter's clock; throws when the task is cancelled.
    private func sleep(_ duration: Duration) async throws(CancellationError) {
        try await sleep(until: clock.now + duration)
    }
}
