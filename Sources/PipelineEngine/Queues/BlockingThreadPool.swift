import Dispatch
import Foundation
import Synchronization

/// The dedicated threads on which a `WorkQueue` runs its blocking
/// operations (libvips work), so that they never occupy a thread of
/// Swift's cooperative pool.
///
/// At most `limit` threads (the queue's concurrency limit), each created
/// when a job finds no idle thread and living until the pool shuts down or
/// the limit is lowered below the number of threads. They are Foundation
/// `Thread`s named "warmer.<queue name>.N" (N counts from 1; see
/// `threadName`). An idle thread parks on
/// its own `DispatchSemaphore`; `submit` wakes one parked thread, and a
/// thread that finishes a job takes the next waiting job before parking, so
/// a job never waits while a thread idles.
///
/// The pool does no admission control: its `WorkQueue` submits a job only
/// when the job holds one of the queue's slots, so at most `limit` jobs are
/// in flight. A job submitted while all `limit` threads are busy (a thread
/// that has just released its slot but not yet come back for work) waits
/// in `jobs` for the next thread to come back.
final class BlockingThreadPool: Sendable {
    /// A piece of blocking work.
    typealias Job = @Sendable () -> Void

    /// The pool's shared state, guarded by `state`.
    private struct State: Sendable {
        /// Jobs no thread has taken yet, in submission order.
        var jobs = RingBuffer<Job>()
        /// The parkers of idle threads, most recently parked last.
        var parked: [DispatchSemaphore] = []
        /// Threads alive (running a job, parked, or between the two).
        var threadCount = 0
        /// Threads ever created: numbers the next thread's name.
        var createdCount = 0
        /// The most threads to keep.
        var limit: Int
        /// Set once by `shutDown`: every thread exits when it has no job.
        var isShutDown = false
    }

    /// What a thread does next.
    private enum Next {
        case run(Job), park, exit
    }

    /// The longest thread name in bytes that Linux keeps (16 with the NUL).
    static let maximumThreadNameLength = 15

    /// The name of the owning queue, part of the threads' names.
    let queueName: String
    private let state: Mutex<State>

    /// Creates a pool with no threads yet.
    init(queueName: String, limit: Int) {
        self.queueName = queueName
        self.state = Mutex(State(limit: limit))
    }

    /// The name of the pool's thread number `number`: "warmer.<queue name>.N",
    /// the queue name shortened to fit `maximumThreadNameLength`. Linux
    /// refuses longer names (the thread would keep the process's name), and
    /// Foundation's `Thread.name` reads the name back from the system.
    static func threadName(queueName: String, number: Int) -> String {
        let prefix = "warmer.", suffix = ".\(number)"
        let budget = maximumThreadNameLength - prefix.utf8.count - suffix.utf8.count
        var shortName = ""
        for character in queueName {
            guard shortName.utf8.count + character.utf8.count <= budget else { break }
            shortName.append(character)
        }
        return prefix + shortName + suffix
    }

    /// The number of threads alive now.
    var threadCount: Int { state.withLock { $0.threadCount } }

    /// Runs `job` on one of the pool's threads, waking a parked thread or
    /// creating one if below the limit.
    func submit(_ job: @escaping Job) {
        let (parker, newThreadNumber) = state.withLock { state -> (DispatchSemaphore?, Int?) in
            state.jobs.append(job)
            if let parker = state.parked.popLast() { return (parker, nil) }
            guard state.threadCount < state.limit else { return (nil, nil) }
            state.threadCount += 1
            state.createdCount += 1
            return (nil, state.createdCount)
        }
        parker?.signal()
        if let newThreadNumber { startThread(number: newThreadNumber) }
    }

    /// Changes the most threads to keep. Lowering it makes surplus parked
    /// threads exit now and busy ones when their job returns.
    func setLimit(_ limit: Int) {
        let surplus = state.withLock { state -> [DispatchSemaphore] in
            state.limit = limit
            let count = min(state.parked.count, max(0, state.threadCount - limit))
            defer { state.parked.removeLast(count) }
            return Array(state.parked.suffix(count))
        }
        surplus.forEach { $0.signal() }
    }

    /// Lets every thread exit once it has no job. Jobs already submitted still run.
    func shutDown() {
        let parked = state.withLock { state -> [DispatchSemaphore] in
            state.isShutDown = true
            defer { state.parked.removeAll() }
            return state.parked
        }
        parked.forEach { $0.signal() }
    }

    /// Starts a named thread running `runLoop`.
    ///
    /// Linux's Foundation makes naming racy: `Thread.name`'s setter does
    /// nothing until `start()` has stored the thread's handle (so a name set
    /// before `start()`, or too early from the new thread, is dropped), and
    /// the new thread re-applies its inherited name as it begins (so a name
    /// set by the parent can be overwritten). Hence the new thread names
    /// itself, once `start()` has returned in the parent (the semaphore
    /// orders the two), before it takes any job.
    private func startThread(number: Int) {
        let name = Self.threadName(queueName: queueName, number: number)
        let isStarted = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            isStarted.wait()
            Thread.current.name = name
            runLoop()
        }
        thread.start()
        isStarted.signal()
    }

    /// A thread's life: run jobs while there are any, park when there are
    /// none, exit when the pool shuts down or has too many threads.
    private func runLoop() {
        let parker = DispatchSemaphore(value: 0)
        while true {
            switch nextStep(parker: parker) {
            case .run(let job): job()
            case .park: parker.wait()
            case .exit: return
            }
        }
    }

    private func nextStep(parker: DispatchSemaphore) -> Next {
        state.withLock { state in
            if let job = state.jobs.popFirst() { return .run(job) }
            if state.isShutDown || state.threadCount > state.limit {
                state.threadCount -= 1
                return .exit
            }
            state.parked.append(parker)
            return .park
        }
    }
}
