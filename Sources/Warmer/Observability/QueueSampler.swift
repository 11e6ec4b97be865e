import Metrics
import Scheduler

/// The queue's depth by state, read from Redis at most once per
/// `maximumAge` however often `/metrics` and `/v1/queue` are asked: a
/// fleet of workers scraped every few seconds must not add load on Redis
/// that grows with the scrapes. Each fresh sample also sets the queue
/// gauges (`warmer_queue_jobs{state}`, `warmer_queue_paused`,
/// `warmer_workers_alive`).
actor QueueSampler {
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

    private let queue: JobQueue
    private let maximumAge: Duration
    private var last: (sample: Sample, at: ContinuousClock.Instant)?
    private var refreshing: Task<Sample, any Error>?

    init(queue: JobQueue, maximumAge: Duration = .seconds(5)) {
        self.queue = queue
        self.maximumAge = maximumAge
    }

    /// The latest sample, read afresh when the last is older than
    /// `maximumAge`. Callers arriving during a read share it.
    func sample() async throws -> Sample {
        if let last, ContinuousClock.now - last.at < maximumAge { return last.sample }
        if let refreshing { return try await refreshing.value }
        let read = Task { [queue] in
            let statistics = try await queue.statistics()
            return Sample(queue: statistics.queue, queued: statistics.queued, active: statistics.active,
                          delayed: statistics.delayed, dead: statistics.dead, intake: statistics.intake,
                          paused: statistics.isPaused, workers: statistics.workers)
        }
        refreshing = read
        defer { refreshing = nil }
        let sample = try await read.value
        last = (sample, .now)
        Self.export(sample)
        return sample
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
