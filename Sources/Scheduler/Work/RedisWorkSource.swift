import RedisKit

/// The work source of a worker on a Redis queue: the `JobQueue`, and the
/// connections the worker's blocking waits hold for themselves, since a
/// `BLMOVE` or `XREAD BLOCK` would otherwise hold up every other command
/// of the queue's client behind it.
public struct RedisWorkSource: WorkSource {
    /// The queue.
    public let queue: JobQueue
    /// For `waitForWork`'s `BLMOVE`.
    private let workWaitClient: RedisClient
    /// For the control stream's `XREAD BLOCK`.
    private let controlClient: RedisClient
    /// For the commands list's `BLMOVE` and the control documents' steps.
    private let commandsClient: RedisClient

    /// The source over `queue`, waiting on the three clients given (each a
    /// connection of its own, to the same Redis).
    public init(queue: JobQueue, workWaitClient: RedisClient, controlClient: RedisClient, commandsClient: RedisClient) {
        self.queue = queue
        self.workWaitClient = workWaitClient
        self.controlClient = controlClient
        self.commandsClient = commandsClient
    }

    public var name: String { queue.keys.name }
    public var leaseDuration: Duration { queue.configuration.leaseDuration }
    public var retryPolicy: JobRetryPolicy { queue.configuration.retry }

    public func claim(upTo count: Int, worker: String) async throws(SchedulerError) -> [Job] {
        try await queue.claim(upTo: count, worker: worker)
    }

    public func waitForWork(timeout: Duration) async throws(SchedulerError) -> Bool {
        try await queue.waitForWork(using: workWaitClient, timeout: timeout)
    }

    public func finish(_ ends: [JobEnd], worker: String, claimingNext count: Int) async throws(SchedulerError) -> FinishReply {
        try await queue.finish(ends, worker: worker, claimingNext: count)
    }

    @discardableResult
    public func release(_ job: Job) async throws(SchedulerError) -> Bool {
        try await queue.release(job)
    }

    public func makeLeaseRenewer(timeout: Duration) -> any LeaseRenewing {
        RedisLeaseRenewer(queue: queue, connection: RedisConnection(url: queue.client.url, timeout: timeout))
    }

    @discardableResult
    public func publish(_ kind: JobEvent.Kind, of job: Job, worker: String, extra: [String: String])
        async throws(SchedulerError) -> Bool
    {
        try await EventStream(queue: queue).publish(kind, of: job, worker: worker, extra: extra)
    }

    public func latestControlPosition() async throws(SchedulerError) -> String {
        try await ControlStream(queue: queue).latestPosition()
    }

    public func controlMessages(after position: String, timeout: Duration)
        async throws(SchedulerError) -> (messages: [ControlStream.Message], next: String)
    {
        try await ControlStream(queue: queue).read(after: position, timeout: timeout, using: controlClient)
    }

    public func applyControlDocumentStep() async throws(SchedulerError) -> ControlDocumentStep {
        try await queue.applyControlDocumentStep(using: commandsClient)
    }

    public func waitForControlDocument(timeout: Duration) async throws(SchedulerError) -> Bool {
        try await queue.waitForControlDocument(using: commandsClient, timeout: timeout)
    }

    @discardableResult
    public func beat(_ identity: WorkerIdentity, load: WorkerLoad, startedAt: Int?) async throws(SchedulerError) -> Int {
        try await WorkerRegistry(queue: queue).beat(identity, load: load, startedAt: startedAt)
    }

    public func removeWorker(_ id: String) async throws(SchedulerError) {
        try await WorkerRegistry(queue: queue).remove(id)
    }

    public func statistics() async throws(SchedulerError) -> QueueStatistics {
        try await queue.statistics()
    }
}
