import Scheduler
import Synchronization
import TestSupport

/// A queue in memory for one worker (`WorkSource`): the worker runtime's
/// tests run over it with no Redis, as the pipeline's run over
/// `FakeDataLoader`.
///
/// The test adds jobs (`add`), which are claimed highest priority first,
/// FIFO within a priority, each with a lease token of its own. Finishing a
/// job records its end (`ends`) and claims the next ones in the same step;
/// a transient failure the `retryPolicy` allows goes back to the queue at
/// once with its next attempt (the fake waits out no retry delay; `retries`
/// logs it). The test chooses what the lease renewer reports
/// (`loseLease(of:)`, `cancelWhileRunning(_:)`), sends control messages
/// (`send(_:)`) and control documents (`push(_:)`), and reads every call
/// the worker made from the logs. Blocking waits (`waitForWork`,
/// `controlMessages`, `waitForControlDocument`) end as soon as what they
/// wait for arrives, when their timeout passes, or when their task is cancelled.
public final class InMemoryWorkSource: WorkSource {
    /// An event the worker published while holding the job's lease.
    public struct PublishedEvent: Sendable, Hashable {
        /// The event's type.
        public let kind: JobEvent.Kind
        /// The job's id.
        public let jobID: String
        /// The event's fields.
        public let fields: [String: String]

        /// An event, as a test expects it.
        public init(kind: JobEvent.Kind, jobID: String, fields: [String: String]) {
            self.kind = kind
            self.jobID = jobID
            self.fields = fields
        }
    }

    /// A beat of the worker's heartbeat.
    public struct Beat: Sendable, Hashable {
        /// Who beat.
        public let identity: WorkerIdentity
        /// What it was doing.
        public let load: WorkerLoad
    }

    struct State {
        var queued: [Job] = []
        /// The lease each claimed job is held under, by job id.
        var leased: [String: Job] = [:]
        var nextToken = 0
        var jobsAdded = 0
        /// The most jobs leased at once.
        var mostLeased = 0
        /// Jobs the next renewal reports as lost, or as cancelled while running.
        var lostAtRenewal: Set<String> = []
        var cancelledAtRenewal: Set<String> = []
        var controlMessages: [ControlStream.Message] = []
        var controlSteps: [ControlDocumentStep] = []
        /// Finishes fail as when Redis cannot be reached (`cutOffFinishes()`).
        var finishesCutOff = false
    }

    let state = Mutex(State())
    let workWaiters = Wakeups()
    let controlWaiters = Wakeups()
    let documentWaiters = Wakeups()

    /// See `WorkSource`.
    public let name: String
    /// See `WorkSource`: the lease keeper renews four times, and the
    /// heartbeat beats three times, in this span.
    public let leaseDuration: Duration
    /// See `WorkSource`.
    public let retryPolicy: JobRetryPolicy

    /// Every job claimed, as claimed (with its lease token), in order.
    public let claims = CallLog<Job>()
    /// Every wait for work the worker began (its timeout), in order.
    public let workWaits = CallLog<Duration>()
    /// Every job end the worker reported, in order, lost leases included.
    public let ends = CallLog<JobEnd>()
    /// Every job that went back to the queue for a retry, as it ended.
    public let retries = CallLog<Job>()
    /// Every release the worker asked for, in order.
    public let releases = CallLog<Job>()
    /// Every event published while the lease was held.
    public let events = CallLog<PublishedEvent>()
    /// The ids of the jobs each lease renewal renewed.
    public let renewals = CallLog<[String]>()
    /// Each time the worker took the control stream's position: how many
    /// claims it had made by then.
    public let controlPositionReads = CallLog<Int>()
    /// Every step of a control document applied (idle ones left out).
    public let appliedSteps = CallLog<ControlDocumentStep>()
    /// Every heartbeat.
    public let beats = CallLog<Beat>()
    /// Every finish call that failed because finishes were cut off: the ids of the jobs it ended.
    public let failedFinishes = CallLog<[String]>()
    /// The ids of the worker records removed.
    public let removedWorkers = CallLog<String>()

    /// An empty queue.
    /// - Parameters:
    ///   - leaseDuration: short (a fraction of a second) for a test that needs
    ///     renewals or heartbeats to come soon; it only sets how soon.
    public init(name: String = "fake", leaseDuration: Duration = .seconds(30), retryPolicy: JobRetryPolicy = JobRetryPolicy()) {
        self.name = name
        self.leaseDuration = leaseDuration
        self.retryPolicy = retryPolicy
    }

    // MARK: What the test does

    /// From now on every finish fails as when Redis cannot be reached
    /// (`RedisError.unreachable`, nothing done), until `restoreFinishes()`.
    public func cutOffFinishes() {
        state.withLock { $0.finishesCutOff = true }
    }

    /// Finishes reach the queue again.
    public func restoreFinishes() {
        state.withLock { $0.finishesCutOff = false }
    }

    /// Queues a job and wakes a worker waiting for work.
    /// - Returns: the job's id.
    @discardableResult
    public func add(
        url: String, id: String? = nil, priority: JobPriority = .normal, destination: JobDestination = .disk,
        processing: String = "", batches: [String] = ["batch"], timeout: Duration? = nil
    ) -> String {
        let jobID = state.withLock { state in
            state.jobsAdded += 1
            let jobID = id ?? "job-\(state.jobsAdded)"
            state.queued.append(Job(
                id: jobID, url: url, batches: batches, priority: priority.rawValue, destination: destination.rawValue,
                processing: processing, attempt: 1, leaseToken: "", timeout: timeout
            ))
            return jobID
        }
        workWaiters.wakeAll()
        return jobID
    }

    /// The ids of the jobs waiting to be claimed, in claim order.
    public var queuedJobIDs: [String] { state.withLock { Self.claimOrder($0.queued).map(\.id) } }

    /// The most jobs the worker held at once.
    public var mostLeased: Int { state.withLock { $0.mostLeased } }

    /// The ids of the jobs leased now.
    public var leasedJobIDs: Set<String> { state.withLock { Set($0.leased.keys) } }

    /// Takes the job's lease away, as if it had expired and another worker
    /// held the job now: the next renewal reports it lost, and a finish,
    /// release or event of the old lease changes nothing.
    public func loseLease(of jobID: String) {
        state.withLock { state in
            state.leased[jobID] = nil
            state.lostAtRenewal.insert(jobID)
        }
    }

    /// Has the next renewal report the job cancelled while it ran (a
    /// control message the worker missed).
    public func cancelWhileRunning(_ jobID: String) {
        state.withLock { _ = $0.cancelledAtRenewal.insert(jobID) }
    }

    // MARK: Work

    /// See `WorkSource`.
    public func claim(upTo count: Int, worker: String) async throws(SchedulerError) -> [Job] {
        let claimed = state.withLock { Self.claim(upTo: count, from: &$0) }
        claimed.forEach(claims.record)
        return claimed
    }

    /// See `WorkSource`.
    public func waitForWork(timeout: Duration) async throws(SchedulerError) -> Bool {
        workWaits.record(timeout)
        return await workWaiters.wait(timeout: timeout) { state.withLock { !$0.queued.isEmpty } }
    }

    /// See `WorkSource`.
    public func finish(_ ends: [JobEnd], worker: String, claimingNext count: Int) async throws(SchedulerError) -> FinishReply {
        if state.withLock({ $0.finishesCutOff }) {
            failedFinishes.record(ends.map(\.job.id))
            throw .redis(.unreachable("127.0.0.1:6379: Connection timed out (finishes cut off by the test)"))
        }
        var retried: [Job] = []
        let reply = state.withLock { state in
            var lost: Set<String> = []
            for end in ends {
                guard state.leased[end.job.id]?.leaseToken == end.job.leaseToken else {
                    lost.insert(end.job.id)
                    continue
                }
                state.leased[end.job.id] = nil
                if case .failed(_, _, isTransient: true) = end.outcome,
                   retryPolicy.delay(afterAttempt: end.job.attempt) != nil {
                    retried.append(end.job)
                    state.queued.append(Self.requeued(end.job, attempt: end.job.attempt + 1))
                }
            }
            return FinishReply(claimed: Self.claim(upTo: count, from: &state), lostLeases: lost)
        }
        ends.forEach(self.ends.record)
        retried.forEach(retries.record)
        reply.claimed.forEach(claims.record)
        if !retried.isEmpty { workWaiters.wakeAll() }
        return reply
    }

    /// See `WorkSource`: the job goes back to the queue with the same attempt.
    @discardableResult
    public func release(_ job: Job) async throws(SchedulerError) -> Bool {
        let released = state.withLock { state in
            guard state.leased[job.id]?.leaseToken == job.leaseToken else { return false }
            state.leased[job.id] = nil
            state.queued.append(Self.requeued(job, attempt: job.attempt))
            return true
        }
        releases.record(job)
        return released
    }

    /// See `WorkSource`.
    public func makeLeaseRenewer(timeout: Duration) -> any LeaseRenewing {
        InMemoryLeaseRenewer(source: self)
    }

    /// What the next renewal of `jobs` reports (the renewer's thread calls this).
    func renew(_ jobs: [Job]) -> JobQueue.Renewal {
        let ids = Set(jobs.map(\.id))
        let renewal = state.withLock { state in
            let lost = state.lostAtRenewal.intersection(ids)
            let cancelled = state.cancelledAtRenewal.intersection(ids)
            state.lostAtRenewal.subtract(lost)
            state.cancelledAtRenewal.subtract(cancelled)
            return JobQueue.Renewal(lost: lost.sorted(), cancelled: cancelled.sorted())
        }
        renewals.record(jobs.map(\.id).sorted())
        return renewal
    }

    // MARK: Events and presence

    /// See `WorkSource`.
    @discardableResult
    public func publish(_ kind: JobEvent.Kind, of job: Job, worker: String, extra: [String: String])
        async throws(SchedulerError) -> Bool
    {
        guard state.withLock({ $0.leased[job.id]?.leaseToken == job.leaseToken }) else { return false }
        events.record(PublishedEvent(kind: kind, jobID: job.id, fields: extra))
        return true
    }

    /// See `WorkSource`.
    @discardableResult
    public func beat(_ identity: WorkerIdentity, load: WorkerLoad, startedAt: Int?) async throws(SchedulerError) -> Int {
        beats.record(Beat(identity: identity, load: load))
        return startedAt ?? 1
    }

    /// See `WorkSource`.
    public func removeWorker(_ id: String) async throws(SchedulerError) {
        removedWorkers.record(id)
    }

    /// See `WorkSource`.
    public func statistics() async throws(SchedulerError) -> QueueStatistics {
        state.withLock { state in
            QueueStatistics(queue: name, queued: state.queued.count, active: state.leased.count, delayed: 0, dead: 0,
                            intake: 0, staged: 0, isPaused: false, workers: 1)
        }
    }

    // MARK: Claiming

    /// Claims up to `count` jobs of `state`, highest priority first, each under a new lease.
    private static func claim(upTo count: Int, from state: inout State) -> [Job] {
        let chosen = claimOrder(state.queued).prefix(max(0, count))
        var claimed: [Job] = []
        for job in chosen {
            state.queued.removeAll { $0.id == job.id }
            state.nextToken += 1
            let leased = Job(
                id: job.id, url: job.url, batches: job.batches, priority: job.priority, destination: job.destination,
                processing: job.processing, attempt: job.attempt, leaseToken: "token-\(state.nextToken)",
                timeout: job.timeout, timeInQueue: .zero
            )
            state.leased[job.id] = leased
            state.mostLeased = max(state.mostLeased, state.leased.count)
            claimed.append(leased)
        }
        return claimed
    }

    /// `jobs` by priority, highest first, in the order they were queued within one.
    private static func claimOrder(_ jobs: [Job]) -> [Job] {
        jobs.enumerated().sorted { lhs, rhs in
            let (left, right) = (band(of: lhs.element), band(of: rhs.element))
            return left != right ? left < right : lhs.offset < rhs.offset
        }.map(\.element)
    }

    private static func band(of job: Job) -> Int {
        (JobPriority(rawValue: job.priority) ?? .normal).band
    }

    /// `job` back in the queue, unleased, for `attempt`.
    private static func requeued(_ job: Job, attempt: Int) -> Job {
        Job(id: job.id, url: job.url, batches: job.batches, priority: job.priority, destination: job.destination,
            processing: job.processing, attempt: attempt, leaseToken: "", timeout: job.timeout)
    }
}
