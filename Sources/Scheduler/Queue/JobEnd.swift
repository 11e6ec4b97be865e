/// One job's end as its worker reports it: the job as claimed and how its
/// attempt ended (`JobQueue.finish(_:worker:claimingNext:)`).
public struct JobEnd: Sendable {
    /// The job, with the lease token it was claimed with.
    public var job: Job
    /// How the attempt ended.
    public var outcome: JobOutcome

    /// A job's end.
    public init(_ job: Job, _ outcome: JobOutcome) {
        self.job = job
        self.outcome = outcome
    }
}
