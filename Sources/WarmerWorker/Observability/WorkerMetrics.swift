import Metrics
import Scheduler

/// What the worker reports to swift-metrics about its jobs: how each ended,
/// how long it ran and waited in the queue, where its image came from, and
/// the worker's slots (docs/observability.md, "Metrics").
///
/// Without a bootstrapped backend (no `--http-port`) these are no-ops.
/// Handles with fixed labels are made once, on first use (after the
/// bootstrap); those labelled by destination, outcome or error code come
/// from the backend's cache of handles.
enum WorkerMetrics {
    /// How a job's attempt ended, the `outcome` label.
    enum Outcome: String, Sendable {
        case completed
        /// Failed for good (no attempt left, or not transient).
        case failed
        /// Failed transiently and parked for another attempt.
        case retried
        case deadLettered = "dead_lettered"
        case cancelled
        /// Given back to the queue unfinished (drain, lost lease, unwritable cache).
        case released
    }

    private static let inFlight = Gauge(label: "warmer_jobs_in_flight")
    private static let freeSlots = Gauge(label: "warmer_job_slots_free")
    private static let finishCalls = Counter(label: "warmer_finish_calls_total")
    private static let cacheSweeps = Counter(label: "warmer_cache_sweeps_total")
    private static let cacheEvictions = Counter(label: "warmer_cache_evictions_total")
    private static let cacheBytes = Gauge(label: "warmer_cache_bytes")
    private static let cacheFiles = Gauge(label: "warmer_cache_files")

    /// Counts a job's end and records how long it ran.
    static func finished(destination: String, outcome: Outcome, code: String, after duration: Duration) {
        let destination = knownDestination(destination)
        Counter(label: "warmer_jobs_finished_total",
                dimensions: [("destination", destination), ("outcome", outcome.rawValue), ("code", code.isEmpty ? "none" : code)]).increment()
        Timer(label: "warmer_job_duration_seconds", dimensions: [("destination", destination), ("outcome", outcome.rawValue)],
              preferredDisplayUnit: .seconds).record(duration: duration)
    }

    /// Records how long a claimed job waited in the queue.
    static func claimed(_ job: Job) {
        guard let waited = job.timeInQueue else { return }
        Timer(label: "warmer_job_queue_wait_seconds", dimensions: [("destination", knownDestination(job.destination))],
              preferredDisplayUnit: .seconds).record(duration: waited)
    }

    /// Counts a sweep of the cache folder by this worker (its elected
    /// sweeper; the other workers sharing the folder count none) and what
    /// it found: the folder's files and bytes before eviction.
    static func cacheSwept(files: Int, bytes: Int, evicted: Int) {
        cacheSweeps.increment()
        cacheEvictions.increment(by: evicted)
        cacheFiles.record(files)
        cacheBytes.record(bytes)
    }

    /// Counts one call of the queue's finish script (with
    /// `warmer_jobs_finished_total`, how many job ends a call carries).
    static func finishCall() {
        finishCalls.increment()
    }

    /// Counts where a completed job's image came from (`memory`, `disk`, `network`, `revalidated`).
    static func cacheResult(source: String) {
        Counter(label: "warmer_cache_results_total", dimensions: [("source", source)]).increment()
    }

    /// Records the worker's slots after a change.
    static func slots(held: Int, capacity: Int) {
        inFlight.record(held)
        freeSlots.record(capacity - held)
    }

    /// A destination label from a closed set: a job's destination is
    /// producer input, and an unknown one must not mint a series.
    private static func knownDestination(_ destination: String) -> String {
        JobDestination(rawValue: destination)?.rawValue ?? "other"
    }
}
