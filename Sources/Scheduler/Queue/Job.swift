/// A job a worker has claimed, with the lease that lets it finish the job.
public struct Job: Sendable, Hashable {
    /// The job's id, unique within its queue.
    public let id: String
    /// The URL to warm, as enqueued (validated by the worker, not the queue).
    public let url: String
    /// The batch the job belongs to.
    public let batchID: String
    /// The priority, as enqueued.
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

    /// Creates a job (the queue does this when claiming).
    public init(id: String, url: String, batchID: String, priority: String, destination: String, processing: String = "", attempt: Int, leaseToken: String) {
        self.id = id
        self.url = url
        self.batchID = batchID
        self.priority = priority
        self.destination = destination
        self.processing = processing
        self.attempt = attempt
        self.leaseToken = leaseToken
    }
}

/// How a job ended.
public enum JobOutcome: Sendable, Hashable {
    /// Done; `source` says where the data came from (`disk`, `network`…).
    case completed(source: String, bytes: Int)
    /// Failed; counts as failed in its batch.
    case failed(code: String, message: String)
    /// The job cannot run (malformed, invalid URL…): moved to the dead-letter set with its reason.
    case deadLettered(code: String, message: String)

    var state: String {
        switch self {
        case .completed: "completed"
        case .failed: "failed"
        case .deadLettered: "dead"
        }
    }
}

/// Why a queue operation failed.
public enum SchedulerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The queue name has characters outside `A–Z a–z 0–9 . _ -` or is too long.
    case invalidQueueName(String)
    /// The job's lease expired and another worker took it over; this worker may not finish it.
    case leaseLost(jobID: String)
    /// No such batch (never created, or expired after its retention).
    case batchNotFound(String)
    /// A batch needs at least one URL.
    case emptyBatch
    /// Talking to Redis failed.
    case redis(RedisError)

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .invalidQueueName(let name): "Invalid queue name '\(name)': use 1-64 characters from A-Z a-z 0-9 . _ -"
        case .leaseLost(let id): "Lost the lease of job \(id): another worker owns it now"
        case .batchNotFound(let id): "No batch '\(id)' in this queue"
        case .emptyBatch: "A batch needs at least one URL"
        case .redis(let error): error.description
        }
    }
}
