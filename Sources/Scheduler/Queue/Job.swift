/// A job a worker has claimed, with the lease that lets it finish the job.
public struct Job: Sendable, Hashable {
    /// The job's id, unique within its queue.
    public let id: String
    /// The URL to warm, as enqueued (validated by the worker, not the queue).
    public let url: String
    /// The batches the job counts in: more than one when several batches
    /// asked for the same work.
    public let batches: [String]
    /// The priority, as enqueued (or raised since).
    public let priority: String
    /// The destination, as enqueued.
    public let destination: String
    /// How to process the image for the `processed` destination, as enqueued
    /// (a spec such as `thumbnail=320&format=webp`, see docs/wire-format.md;
    /// validated by the worker, not the queue); empty for none.
    public let processing: String
    /// 1 for the first attempt.
    public let attempt: Int
    /// Proves this worker holds the lease; finishing with a stale token fails.
    public let leaseToken: String
    /// The job's time limit as enqueued (the intake document's `timeout`),
    /// whole seconds; `nil` for the worker's own (`--job-timeout`).
    public let timeout: Duration?
    /// How long the job waited between being enqueued and this claim, by
    /// Redis's clock (retries and stalls included); `nil` when unknown.
    public let timeInQueue: Duration?

    /// Creates a job (the queue does this when claiming).
    public init(id: String, url: String, batches: [String], priority: String, destination: String,
                processing: String = "", attempt: Int, leaseToken: String, timeout: Duration? = nil,
                timeInQueue: Duration? = nil) {
        self.id = id
        self.url = url
        self.batches = batches
        self.priority = priority
        self.destination = destination
        self.processing = processing
        self.attempt = attempt
        self.leaseToken = leaseToken
        self.timeout = timeout
        self.timeInQueue = timeInQueue
    }

    /// The first batch that asked for the job.
    public var batchID: String { batches.first ?? "" }
}
