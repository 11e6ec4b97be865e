import Logging
import Metrics
import Scheduler
import ServiceLifecycle
import Synchronization

/// The queue's depth by state, read from Redis in the background once per
/// `interval` while the HTTP server is up, so that `/metrics` and
/// `/v1/queue` answer at once from the last reading, whether Redis is
/// quick, slow or gone, and a fleet of scraped workers adds load on Redis
/// that does not grow with the scrapes. Each reading also sets the queue
/// gauges (`warmer_queue_jobs{state}`, `warmer_queue_paused`,
/// `warmer_workers_alive`).
final class QueueSampler: Service, Sendable {
    /// One reading of the queue.
    struct Sample: Sendable, Encodable {
        let queue: String
        let queued: Int
        let active: Int
        let delayed: Int
        let dead: Int
        /// Intake documents and wake-up markers not yet expanded.
        let intake: Int
        let paused: Bool
        /// Workers whose heartbeat record is alive.
        let workers: Int
    }

    private let source: any WorkSource
    private let interval: Duration
    private let logger: Logger
    private let latest = Mutex<(sample: Sample, at: ContinuousClock.Instant)?>(nil)

    init(source: any WorkSource, interval: Duration = .seconds(5), logger: Logger) {
        self.source = source
        self.interval = interval
        self.logger = logger
    }

    /// The last reading and its age; `nil` before the first one succeeded.
    var last: (sample: Sample, age: Duration)? {
        latest.withLock { latest in latest.map { ($0.sample, ContinuousClock.now - $0.at) } }
    }

    /// Reads the queue every `interval` until the group shuts it down.
    func run() async {
        await cancelWhenGracefulShutdown { [self] in
            var failing = false
            while !Task.isCancelled {
                do {
                    let statistics = try await source.statistics()
                    let sample = Sample(queue: statistics.queue, queued: statistics.queued, active: statistics.active,
                                        delayed: statistics.delayed, dead: statistics.dead, intake: statistics.intake,
                                        paused: statistics.isPaused, workers: statistics.workers)
                    latest.withLock { $0 = (sample, .now) }
                    Self.export(sample)
                    failing = false
                } catch {
                    if !failing { logger.warning("could not read the queue's depth", metadata: ["error": "\(error)"]) }
                    failing = true
                }
                try? await Task.sleep(for: interval)
            }
        }
    }

    private static func export(_ sample: Sample) {
        let states = [("queued", sample.queued), ("active", sample.active), ("delayed", sample.delayed),
                      ("dead", sample.dead), ("intake", sample.intake)]
        for (state, count) in states {
            Gauge(label: "warmer_queue_jobs", dimensions: [("state", state)]).record(count)
        }
        Gauge(label: "warmer_queue_paused").record(sample.paused ? 1 : 0)
        Gauge(label: "warmer_workers_alive").record(sample.workers)
    }
}
