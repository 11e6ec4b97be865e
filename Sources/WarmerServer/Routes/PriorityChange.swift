import Scheduler

/// The body of `PATCH …/batches/{id}` and `PATCH …/jobs/{id}`.
struct PriorityChange: Decodable {
    let priority: String

    /// The priority named, or a 400 listing the names.
    func jobPriority() throws -> JobPriority {
        guard let value = JobPriority(rawValue: priority) else {
            throw Problem.badRequest("priority must be one of " + JobPriority.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return value
    }
}

/// The answer to a priority change.
struct PriorityResult: Encodable {
    /// Jobs whose priority changed.
    let changedJobs: Int
}

/// The answer to a cancellation.
struct CancellationBody: Encodable {
    let cancelledJobs: Int
    let abortedRunningJobs: Int
    /// For a batch: `true` when it had already finished and was left as it
    /// was; absent otherwise.
    let alreadyFinished: Bool?

    init(_ cancellation: JobQueue.Cancellation) {
        cancelledJobs = cancellation.cancelledJobs
        abortedRunningJobs = cancellation.abortedRunningJobs
        alreadyFinished = cancellation.alreadyFinished ? true : nil
    }
}
