/// A queue's state at one moment (`warmer status` without a batch).
public struct QueueStatistics: Sendable, Hashable, Codable {
    /// The queue's name.
    public let queue: String
    /// Jobs waiting to be claimed.
    public let queued: Int
    /// Jobs leased to workers.
    public let active: Int
    /// Jobs waiting for a retry.
    public let delayed: Int
    /// Dead-lettered entries.
    public let dead: Int
    /// Intake list entries not yet expanded (documents and wake-up markers).
    public let intake: Int
    /// URLs of large documents accepted but still to become jobs, a slice
    /// per claim (they count in their batches' totals already).
    public let staged: Int
    /// Whether the queue is paused.
    public let isPaused: Bool
    /// Workers whose heartbeat record is live (`WorkerRegistry`).
    public let workers: Int

    /// A queue's counts (the queue reads them from Redis; an in-memory
    /// `WorkSource` builds them).
    public init(queue: String, queued: Int, active: Int, delayed: Int, dead: Int, intake: Int, staged: Int,
                isPaused: Bool, workers: Int) {
        self.queue = queue
        self.queued = queued
        self.active = active
        self.delayed = delayed
        self.dead = dead
        self.intake = intake
        self.staged = staged
        self.isPaused = isPaused
        self.workers = workers
    }
}
