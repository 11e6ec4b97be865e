/// Why a queue operation failed.
public enum SchedulerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The queue name has characters outside `A–Z a–z 0–9 . _ -` or is too long.
    case invalidQueueName(String)
    /// A batch id has characters outside `A–Z a–z 0–9 . _ -` or is too long.
    case invalidBatchID(String)
    /// The job's lease expired and another worker took it over; this worker may not finish it.
    case leaseLost(jobID: String)
    /// No such batch (never created, or expired after its retention).
    case batchNotFound(String)
    /// A batch needs at least one URL.
    case emptyBatch
    /// A job time limit outside `JobQueue.timeoutRange`, or not whole seconds.
    case invalidTimeout(Duration)
    /// Talking to Redis failed.
    case redis(RedisError)

    init(_ error: RedisError) {
        self = .redis(error)
    }

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .invalidQueueName(let name): "Invalid queue name '\(name)': use 1-64 characters from A-Z a-z 0-9 . _ -"
        case .invalidBatchID(let id): "Invalid batch id '\(id)': use 1-128 characters from A-Z a-z 0-9 . _ -"
        case .leaseLost(let id): "Lost the lease of job \(id): another worker owns it now"
        case .batchNotFound(let id): "No batch '\(id)' in this queue"
        case .emptyBatch: "A batch needs at least one URL"
        case .invalidTimeout(let timeout):
            "Invalid job timeout \(timeout): use whole seconds from \(JobQueue.timeoutRange.lowerBound) to \(JobQueue.timeoutRange.upperBound)"
        case .redis(let error): error.description
        }
    }
}
