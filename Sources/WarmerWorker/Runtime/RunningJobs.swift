import PipelineEngine
import Scheduler

/// The jobs a worker holds right now, with their pipeline tasks.
///
/// Gives the lease keeper the jobs to renew (`leases`, readable from its
/// thread), lets the worker abandon jobs (lost lease, end of the grace
/// period: they go back to the queue) or
/// cancel them (a control message: they end as cancelled), changes a running
/// job's priority, and tells the worker when a slot frees up.
actor RunningJobs {
    private var jobs: [String: Entry] = [:]
    private var slotWaiters: [CheckedContinuation<Void, Never>] = []
    private var emptyWaiters: [CheckedContinuation<Void, Never>] = []
    /// The slots: the worker's `--concurrency`.
    let capacity: Int
    /// The held jobs' leases, for the lease keeper's thread.
    nonisolated let leases = HeldLeases()

    private struct Entry {
        let job: Job
        var task: ImageTask?
        /// A priority set before the task was attached, given to it then.
        var priority: ImagePriority?
        var isAbandoned = false
        /// Abandoned with every other job held: the worker let go of them all.
        var wasLetGo = false
        var isCancelled = false
    }

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Free slots now.
    var freeSlots: Int { capacity - jobs.count }
    /// Number of jobs held now.
    var count: Int { jobs.count }
    /// The slots this worker has (`--concurrency`).
    nonisolated var slots: Int { capacity }
    /// The ids of the jobs held now.
    var ids: [String] { Array(jobs.keys) }

    /// Waits until at least one slot is free, or returns at once when
    /// `giveUp` says so (the worker drains: `wakeSlotWaiters` follows).
    func waitForFreeSlot(unless giveUp: @Sendable () -> Bool = { false }) async {
        guard jobs.count >= capacity, !giveUp() else { return }
        await withCheckedContinuation { slotWaiters.append($0) }
    }

    /// Lets whoever waits for a slot go on (to notice a stop request).
    func wakeSlotWaiters() {
        for waiter in slotWaiters { waiter.resume() }
        slotWaiters.removeAll()
    }

    /// Waits until no job is held.
    func waitUntilEmpty() async {
        guard !jobs.isEmpty else { return }
        await withCheckedContinuation { emptyWaiters.append($0) }
    }

    func add(_ job: Job) {
        jobs[job.id] = Entry(job: job)
        leases.insert(job)
        WorkerMetrics.slots(held: jobs.count, capacity: capacity)
    }

    /// Whether the job is held by this worker.
    func holds(_ jobID: String) -> Bool {
        jobs[jobID] != nil
    }

    /// Attaches the job's pipeline task, at the priority a control message
    /// set meanwhile; cancels it at once if the job was abandoned meanwhile.
    func attach(_ task: ImageTask, to jobID: String) {
        jobs[jobID]?.task = task
        if let priority = jobs[jobID]?.priority { task.priority = priority }
        if jobs[jobID]?.isAbandoned == true { task.cancel() }
    }

    /// Whether the job was abandoned (lease lost or grace period over): it must be released, not finished.
    func isAbandoned(_ jobID: String) -> Bool {
        jobs[jobID]?.isAbandoned ?? true
    }

    /// Whether the worker let go of every job it held while it held this
    /// one (the grace period ended, a second stop signal, the worker was
    /// cancelled, its cache folder takes no writes), as against losing this
    /// job's lease: a finish that cannot reach Redis stops trying then.
    func wasLetGo(_ jobID: String) -> Bool {
        jobs[jobID]?.wasLetGo ?? true
    }

    /// Whether the job was cancelled through the queue: it must be acknowledged as cancelled.
    func isCancelled(_ jobID: String) -> Bool {
        jobs[jobID]?.isCancelled ?? false
    }

    /// Aborts the given jobs because the queue cancelled them; returns the ids this worker held.
    func cancel(_ ids: [String]) -> [String] {
        let held = ids.filter { jobs[$0] != nil }
        for id in held {
            jobs[id]?.isCancelled = true
        }
        abandon(held)
        return held
    }

    /// Moves a running job's pipeline work to `priority`, at once or, when
    /// its task has not started yet, as it is attached.
    func setPriority(_ priority: ImagePriority, of jobID: String) {
        jobs[jobID]?.priority = priority
        jobs[jobID]?.task?.priority = priority
    }

    /// Cancels the pipeline work of the given jobs (their leases were lost,
    /// or the queue cancelled them): they are released, not finished.
    func abandon(_ ids: [String]) {
        for id in ids {
            jobs[id]?.isAbandoned = true
            jobs[id]?.task?.cancel()
        }
    }

    /// Abandons every job held: the worker lets go of them all (the grace
    /// period ended, a second stop signal, the worker was cancelled, its
    /// cache folder takes no writes). A finish still trying to reach Redis
    /// stops trying (`wasLetGo`).
    func letGoOfAll() {
        let held = Array(jobs.keys)
        for id in held { jobs[id]?.wasLetGo = true }
        abandon(held)
    }

    /// Hands a job's slot to its successor, or frees the slot when there is none.
    func replace(_ jobID: String, with next: Job?) {
        guard let next else { return remove(jobID) }
        jobs[jobID] = nil
        leases.remove([jobID])
        jobs[next.id] = Entry(job: next)
        leases.insert(next)
    }

    func remove(_ jobID: String) {
        jobs[jobID] = nil
        leases.remove([jobID])
        WorkerMetrics.slots(held: jobs.count, capacity: capacity)
        if jobs.count < capacity, !slotWaiters.isEmpty {
            slotWaiters.removeFirst().resume()
        }
        if jobs.isEmpty {
            for waiter in emptyWaiters { waiter.resume() }
            emptyWaiters.removeAll()
        }
    }
}
