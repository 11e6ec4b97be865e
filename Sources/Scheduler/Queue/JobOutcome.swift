/// How a job's attempt ended.
public enum JobOutcome: Sendable, Hashable {
    /// Done; `source` says where the data came from (`disk`, `network`…).
    case completed(source: String, bytes: Int)
    /// Failed. A transient failure (connection refused, 5xx…) is retried
    /// with backoff while the queue's retry policy allows; otherwise, and for
    /// a permanent failure, the job counts as failed in its batches and goes
    /// to the dead-letter set.
    case failed(code: String, message: String, isTransient: Bool = false)
    /// The job cannot run (malformed, invalid URL…): dead-lettered with its reason at once.
    case deadLettered(code: String, message: String)
    /// The worker aborted the job because it was cancelled.
    case cancelled

    var state: String {
        switch self {
        case .completed: "completed"
        case .failed: "failed"
        case .deadLettered: "dead"
        case .cancelled: "cancelled"
        }
    }
}
