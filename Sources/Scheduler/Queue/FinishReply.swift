/// What one call of the finish script did for a worker.
public struct FinishReply: Sendable {
    /// The jobs claimed for the worker in the same step, in claim order.
    public var claimed: [Job]
    /// The ids of the ends that changed nothing because the job's lease was
    /// no longer the one the worker held (another worker runs the job now,
    /// or it went back to the queue).
    public var lostLeases: Set<String>

    /// A reply (the queue decodes it from the finish script; an in-memory
    /// `WorkSource` builds it).
    public init(claimed: [Job], lostLeases: Set<String>) {
        self.claimed = claimed
        self.lostLeases = lostLeases
    }
}
