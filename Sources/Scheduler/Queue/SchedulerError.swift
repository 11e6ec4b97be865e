import RedisKit

/// Why a queue operation failed.
public enum SchedulerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The queue name has characters outside `A–Z a–z 0–9 . _ -` or is too long.
    case invalidQueueName(String)
    /// A batch id has characters outside `A–Z a–z 0–9 . _ -` or is too long.
    case invalidBatchID(String)
    /// A group name (or a group's weight or limit) outside what `JobQueue.setGroup` and `enqueue` take.
    case invalidGroup(String)
    /// The job's lease expired and another worker took it over; this worker may not finish it.
    case leaseLost(jobID: String)
    /// No such batch (never created, or expired after its retention).
    case batchNotFound(String)
    /// A batch needs at least one URL.
    case emptyBatch
    /// A batch listing's cursor that no page gave (`JobQueue.batches(limit:before:)`).
    case invalidCursor(String)
    /// A job time limit outside `JobQueue.timeoutRange`, or not whole seconds.
    case invalidTimeout(Duration)
    /// A `freshFor` outside `JobQueue.freshForRange`, or not whole seconds.
    case invalidFreshFor(Duration)
    /// An intake document the queue refuses (`JobQueue.submit`): the code
    /// (`malformed_document`, `invalid_document`) and message the intake
    /// list dead-letters the same document with.
    case invalidDocument(code: String, message: String)
    /// Talking to Redis failed.
    case redis(RedisError)
    /// A batch enqueued in several chunks failed after its first chunk went
    /// in: `enqueued` of its `total` URLs are queued (and its total counts
    /// them all), the others may or may not be. Not retried on its own:
    /// sending the batch again would count its URLs twice.
    case incompleteEnqueue(batch: String, enqueued: Int, total: Int, cause: RedisError)

    init(_ error: RedisError) {
        self = .redis(error)
    }

    /// Whether the operation may succeed if tried again later: Redis was
    /// unreachable, its connection broke, or it answered `LOADING`, `BUSY`,
    /// `TRYAGAIN` or `MASTERDOWN` (`RedisError.isTransient`).
    public var isTransient: Bool {
        if case .redis(let error) = self { return error.isTransient }
        return false
    }

    /// Whether Redis certainly did not run the operation's command
    /// (`RedisError.didNotRun`): safe to send again even when it is not idempotent.
    public var didNotRun: Bool {
        if case .redis(let error) = self { return error.didNotRun }
        return false
    }

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .invalidQueueName(let name): "Invalid queue name '\(name)': use 1-64 characters from A-Z a-z 0-9 . _ -"
        case .invalidBatchID(let id): "Invalid batch id '\(id)': use 1-128 characters from A-Z a-z 0-9 . _ -"
        case .invalidGroup(let name): "Invalid group '\(name)': use 1-128 characters from A-Z a-z 0-9 . _ -, a weight of 1-1000 and a limit of 0 or more"
        case .leaseLost(let id): "Lost the lease of job \(id): another worker owns it now"
        case .batchNotFound(let id): "No batch '\(id)' in this queue"
        case .emptyBatch: "A batch needs at least one URL"
        case .invalidCursor(let cursor): "Invalid batch cursor '\(cursor)': pass the 'next' of a previous page"
        case .invalidTimeout(let timeout):
            "Invalid job timeout \(timeout): use whole seconds from \(JobQueue.timeoutRange.lowerBound) to \(JobQueue.timeoutRange.upperBound)"
        case .invalidFreshFor(let freshFor):
            "Invalid freshFor \(freshFor): use whole seconds from \(JobQueue.freshForRange.lowerBound) to \(JobQueue.freshForRange.upperBound)"
        case .invalidDocument(let code, let message): "\(code): \(message)"
        case .redis(let error): error.description
        case .incompleteEnqueue(let batch, let enqueued, let total, let cause):
            "Only \(enqueued) of the \(total) URLs of batch \(batch) are surely enqueued (its total counts all \(total)): \(cause.description)"
        }
    }
}
