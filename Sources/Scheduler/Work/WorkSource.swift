/// What a worker asks of the queue it works for: the seam between the
/// worker runtime (`WarmerWorker`) and the Redis queue, as `DataLoading` is
/// the seam between the pipeline and the network.
///
/// `RedisWorkSource` is the real one: a `JobQueue` and the connections a
/// worker keeps for its blocking waits. The worker's fast tests run over
/// an in-memory fake of it (`SchedulerFakes`).
///
/// A source serves one worker. Every method may be called from several
/// tasks at once; none of them blocks a thread except the lease renewer's.
public protocol WorkSource: Sendable {
    /// The queue's name, for logs.
    var name: String { get }
    /// How long a claim's lease lasts: a worker renews its leases four
    /// times in that span, and gives a job up that long after the lease
    /// stopped being renewed.
    var leaseDuration: Duration { get }
    /// When a transiently failed job runs again, and how often.
    var retryPolicy: JobRetryPolicy { get }

    // MARK: Work

    /// Claims up to `count` jobs for `worker`, highest priority first.
    func claim(upTo count: Int, worker: String) async throws(SchedulerError) -> [Job]
    /// Waits until work may be there to claim, or `timeout` passed, or the
    /// caller's task is cancelled (a stop: it returns at once, and what the
    /// wait took stays for the next claim).
    /// - Returns: whether work was signalled.
    func waitForWork(timeout: Duration) async throws(SchedulerError) -> Bool
    /// Ends `ends` of `worker`'s jobs and claims up to `count` more in one
    /// step (`FinishBatcher` gathers the ends of a worker's jobs).
    func finish(_ ends: [JobEnd], worker: String, claimingNext count: Int) async throws(SchedulerError) -> FinishReply
    /// Gives a claimed job back to the queue untouched (the worker stops).
    /// - Returns: whether the job was still this worker's.
    @discardableResult
    func release(_ job: Job) async throws(SchedulerError) -> Bool
    /// A renewer of leases for one thread: the lease keeper renews on a
    /// thread of its own, which a busy cooperative pool cannot hold up.
    /// - Parameter timeout: how long one renewal may take before it fails.
    func makeLeaseRenewer(timeout: Duration) -> any LeaseRenewing

    // MARK: Events

    /// Publishes `kind` of `job` while `worker` holds its lease.
    /// - Returns: whether it was published (false: the lease was lost).
    @discardableResult
    func publish(_ kind: JobEvent.Kind, of job: Job, worker: String, extra: [String: String])
        async throws(SchedulerError) -> Bool

    // MARK: Control

    /// The position after the last control message sent so far.
    func latestControlPosition() async throws(SchedulerError) -> String
    /// The control messages (cancellations, priority changes) after
    /// `position`, waiting up to `timeout` for one (or until the caller's
    /// task is cancelled); and the position to read from next.
    func controlMessages(after position: String, timeout: Duration)
        async throws(SchedulerError) -> (messages: [ControlStream.Message], next: String)
    /// Applies one step of the next control document clients pushed, if any.
    func applyControlDocumentStep() async throws(SchedulerError) -> ControlDocumentStep
    /// Waits until a control document may be there, or `timeout` passed, or
    /// the caller's task is cancelled.
    func waitForControlDocument(timeout: Duration) async throws(SchedulerError) -> Bool

    // MARK: Presence

    /// Writes or refreshes the worker's record for one lease.
    /// - Returns: when the worker started (ms), as recorded.
    @discardableResult
    func beat(_ identity: WorkerIdentity, load: WorkerLoad, startedAt: Int?) async throws(SchedulerError) -> Int
    /// Removes the worker's record (it stops).
    func removeWorker(_ id: String) async throws(SchedulerError)
    /// The queue's counts, for the worker's metrics.
    func statistics() async throws(SchedulerError) -> QueueStatistics
}
