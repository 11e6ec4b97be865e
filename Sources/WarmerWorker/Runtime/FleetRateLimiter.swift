import Logging
import PipelineEngine
import Scheduler
import Synchronization

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
package final class FleetRateLimiter: DownloadPermits {
    /// How long a download waits before asking again when Redis did not answer.
    static let redisRetry: Duration = .milliseconds(250)

    /// The limits it asks for.
    let limits: FleetRateLimits
    private let queue: JobQueue
    private let metrics: FleetRateMetrics
    private let logger: Logger
    private let isFailing = Atomic<Bool>(false)

    /// A limiter of `queue`'s downloads under `limits`.
    package init(queue: JobQueue, limits: FleetRateLimits, logger: Logger) {
        self.queue = queue
        self.limits = limits
        self.metrics = FleetRateMetrics(overridden: Set(limits.hostOverrides.keys))
        self.logger = logger
    }

    package func permit(host: String, priority: @escaping @Sendable () -> ImagePriority) async throws(CancellationError) {
        guard limits.limits(host: host) else { return }
        let start = ContinuousClock.now
        while true {
            if Task.isCancelled { throw CancellationError() }
            let reservation: DownloadReservation
            do {
                reservation = try await queue.reserveDownload(
                    host: host, band: ImagePriority.veryHigh.rawValue - priority().rawValue, waited: .now - start, limits: limits)
            } catch {
                metrics.redisFailed()
                if !isFailing.exchange(true, ordering: .relaxed) {
                    logger.warning("fleet rate limits: Redis did not answer; downloads wait for it", metadata: ["error": "\(error)"])
                }
                try await Self.sleep(Self.redisRetry)
                continue
            }
            if isFailing.exchange(false, ordering: .relaxed) {
                logger.info("fleet rate limits: Redis answers again")
            }
            switch reservation {
            case .granted(let wait):
                if wait > .zero { try await Self.sleep(wait) }
                metrics.permitted(host: host, waited: .now - start)
                return
            case .refused(let retryIn):
                metrics.refused(host: host)
                try await Self.sleep(max(retryIn, .milliseconds(1)))
            }
        }
    }

    /// Sleeps for `duration`; throws when the task is cancelled.
    private static func sleep(_ duration: Duration) async throws(CancellationError) {
        do { try await Task.sleep(for: duration) } catch { throw CancellationError() }
    }
}
