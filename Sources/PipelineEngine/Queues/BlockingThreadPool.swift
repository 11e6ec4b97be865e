import Synchronization
import WarmerSupport

/// The dedicated threads on which a `WorkQueue` runs its blocking
/// operations (libvips work), so that they never occupy a thread of
/// Swift's cooperative pool.
///
/// At most `limit` threads (the queue's concurrency limit), each created
/// when a job finds no idle thread and living until the pool shuts down or
/// the limit is lowered below the number of threads. They are
/// `DedicatedThread`s named "warmer.<queue name>.N" (N counts from 1; see
/// `threadName`), consuming one `ThreadInbox` one job per turn: `submit`
/// wakes one waiting thread, and a thread that finishes a job takes the
/// next queued job before waiting, so a job never waits while a thread
/// idles.
///
/// The pool does no admission control: its `WorkQueue` submits a job only
/// when the job holds one of the queue's slots, so at most `limit` jobs are
/// in flight. A job submitted while all `limit` threads are busy (a thread
/// that has just released its slot but not yet come back for work) waits
/// in the inbox for the next thread to come back.
final class BlockingThreadPool: Sendable {
    /// A piece of blocking work.
    typealias Job = @Sendable () -> Void

    /// How many threads there are and may be, guarded by `threads`.
    private struct Threads: Sendable {
        /// Threads alive (running a job, waiting, or between the two).
        var count = 0
        /// Threads ever created: numbers the next thread's name.
        var createdCount = 0
        /// The most threads to keep.
        var limit: Int
    }

    /// The name of the owning queue, part of the threads' names.
    let queueName: String
    /// Jobs no thread has taken yet, in submission order.
    private let jobs = ThreadInbox<Job>()
    private let threads: Mutex<Threads>

    /// Creates a pool with no threads yet.
    init(queueName: String, limit: Int) {
        self.queueName = queueName
        self.threads = Mutex(Threads(limit: limit))
    }

    /// The name of the pool's thread number `number`: "warmer.<queue name>.N",
    /// the queue name shortened to fit Linux's limit (`DedicatedThread.name`).
    static func threadName(queueName: String, number: Int) -> String {
        DedicatedThread.name(queueName, number: number)
    }

    /// The number of threads alive now.
    var threadCount: Int { threads.withLock { $0.count } }

    /// Runs `job` on one of the pool's threads, waking a waiting thread or
    /// creating one if below the limit.
    func submit(_ job: @escaping Job) {
        switch jobs.post(job) {
        case .wokeWaitingConsumer:
            return
        case .queued:
            let newThreadNumber = threads.withLock { threads -> Int? in
                guard threads.count < threads.limit else { return nil }
                threads.count += 1
                threads.createdCount += 1
                return threads.createdCount
            }
            if let newThreadNumber { startThread(number: newThreadNumber) }
        case .refused:
            // Shut down: no thread takes it any more, but a submitted job still runs.
            DedicatedThread.start(named: Self.threadName(queueName: queueName, number: 0), job)
        }
    }

    /// Changes the most threads to keep. Lowering it makes surplus waiting
    /// threads exit now and busy ones when they find no job queued.
    func setLimit(_ limit: Int) {
        let isLower = threads.withLock { threads in
            defer { threads.limit = limit }
            return limit < threads.limit
        }
        if isLower { jobs.wakeWaitingConsumers() }
    }

    /// Lets every thread exit once no job is queued. Jobs already submitted still run.
    func shutDown() {
        jobs.close()
    }

    /// Starts thread number `number`: it runs jobs while any are queued,
    /// waits when there are none, and exits when the pool shuts down or
    /// has more threads than its limit.
    private func startThread(number: Int) {
        DedicatedThread.start(named: Self.threadName(queueName: queueName, number: number)) { [self] in
            var isSurplus = false
            jobs.consume(batchLimit: 1, leavingWhen: {
                isSurplus = leavesAsSurplus()
                return isSurplus
            }) { batch in
                for job in batch { job() }
            }
            // A surplus thread was counted out as it left; one that saw the inbox closed counts itself out.
            if !isSurplus { threads.withLock { $0.count -= 1 } }
        }
    }

    /// Whether an idle thread should exit because the pool has more than its
    /// limit; if so, it is counted out at once, so that only the surplus exits.
    private func leavesAsSurplus() -> Bool {
        threads.withLock { threads in
            guard threads.count > threads.limit else { return false }
            threads.count -= 1
            return true
        }
    }
}
