import Synchronization

/// The work queue of one pipeline stage (data loading, decoding,
/// processing, encoding): a concurrency limit, strict priority order, and
/// FIFO within a priority, as Nuke's stage queues.
///
/// - `enqueue` takes an asynchronous operation: it is started when a slot
///   is free and it is the best waiting item, and holds the slot until it
///   calls its `finish`. Its `start` closure runs on whichever thread
///   started it (see *Starting*) and must return quickly.
/// - `enqueueBlocking` takes blocking work (libvips): it runs on one of the
///   queue's own threads (`BlockingThreadPool`, "warmer.<name>.N" shortened
///   to Linux's 15 bytes), never on Swift's cooperative pool, and holds the
///   slot until it returns.
///
/// Both kinds share the slots and the order. A waiting item can move to
/// another priority or be cancelled through its `WorkItem`.
///
/// ## Starting
/// Whoever frees a slot or adds work (`enqueue`, a `finish`, resuming,
/// raising the limit) starts what can start, outside the lock. One thread
/// at a time does so (`State.isDraining`), in a loop: a `finish` called
/// synchronously from `start`, or from another thread meanwhile, only
/// updates the counts and leaves the starting to that loop. So starts never
/// recurse, and items start exactly in priority order. The price: the
/// draining thread also runs `start` closures enqueued by others, which is
/// why they must be quick (a blocking item's start is a hand-off to the
/// pool).
///
/// The queue's lock is taken before an item's, never the other way round.
/// Dropping the queue drops its waiting items (they never start); a
/// running item keeps the queue alive until it finishes.
final class WorkQueue: Sendable {
    /// What the lock guards.
    private struct State: Sendable {
        /// The items waiting to start.
        var waiting = WaitingList()
        /// Items started and not yet finished.
        var running = 0
        /// The concurrency limit.
        var limit: Int
        /// When set, nothing new starts.
        var isSuspended = false
        /// Set while a thread runs the start loop (see *Starting*).
        var isDraining = false

        /// Takes the best waiting item if a slot is free and the queue runs:
        /// the item is now running and holds a slot.
        mutating func claimNext() -> (WorkItem, WorkItem.Work)? {
            guard !isSuspended, running < limit else { return nil }
            guard let claimed = waiting.popFirst({ entry in
                entry.item.claim(ticket: entry.ticket).map { (entry.item, $0) }
            }) else { return nil }
            running += 1
            return claimed
        }
    }

    /// The queue's name, as in its threads' names.
    let name: String
    private let state: Mutex<State>
    private let threads: BlockingThreadPool

    /// Creates a queue that runs at most `maxConcurrentOperationCount`
    /// operations at a time (at least 1).
    init(name: String, maxConcurrentOperationCount: Int) {
        precondition(maxConcurrentOperationCount > 0, "a work queue needs at least one slot")
        self.name = name
        self.state = Mutex(State(limit: maxConcurrentOperationCount))
        self.threads = BlockingThreadPool(queueName: name, limit: maxConcurrentOperationCount)
    }

    deinit {
        threads.shutDown()
    }

    /// The most operations running at once (at least 1). Raising it starts
    /// waiting work at once; lowering it lets running work finish.
    var maxConcurrentOperationCount: Int {
        get { state.withLock { $0.limit } }
        set {
            precondition(newValue > 0, "a work queue needs at least one slot")
            state.withLock { state in
                state.limit = newValue
                threads.setLimit(newValue) // under the lock, so that both limits agree
            }
            drain()
        }
    }

    /// When true, nothing new starts; running work goes on. Setting it back
    /// to false starts waiting work.
    var isSuspended: Bool {
        get { state.withLock { $0.isSuspended } }
        set {
            state.withLock { $0.isSuspended = newValue }
            if !newValue { drain() }
        }
    }

    /// Operations running or waiting.
    var operationCount: Int { state.withLock { $0.running + $0.waiting.liveCount } }
    /// Operations started and not yet finished.
    var runningCount: Int { state.withLock { $0.running } }
    /// Operations waiting to start (cancelled ones excluded).
    var waitingCount: Int { state.withLock { $0.waiting.liveCount } }
    /// The dedicated threads alive now (at most the limit).
    var threadCount: Int { threads.threadCount }

    /// Enqueues an asynchronous operation. `start` is called, outside any
    /// lock, when a slot is free and this is the best waiting item; the slot
    /// is held until the `finish` it receives is called (a second call is
    /// harmless). `start` must not block.
    @discardableResult
    func enqueue(
        priority: ImagePriority, _ start: @escaping @Sendable (_ finish: @escaping WorkItem.Finish) -> Void
    ) -> WorkItem {
        add(WorkItem(priority: priority, work: .async(start), queue: self))
    }

    /// Enqueues blocking work. `body` runs on one of the queue's dedicated
    /// threads when a slot is free and this is the best waiting item; the
    /// slot is released when it returns.
    @discardableResult
    func enqueueBlocking(priority: ImagePriority, _ body: @escaping @Sendable () -> Void) -> WorkItem {
        add(WorkItem(priority: priority, work: .blocking(body), queue: self))
    }

    private func add(_ item: WorkItem) -> WorkItem {
        let priority = item.priority
        state.withLock { $0.waiting.append(item, ticket: 0, priority: priority) }
        drain()
        return item
    }

    /// `WorkItem.setPriority`: moves a waiting item to the back of
    /// `priority`'s FIFO, unless it already has that priority.
    func move(_ item: WorkItem, to priority: ImagePriority) {
        state.withLock { state in
            let ticket = item.fields.withLock { fields -> UInt32? in
                guard fields.state == .waiting, fields.priority != priority else { return nil }
                fields.priority = priority
                fields.ticket &+= 1
                return fields.ticket
            }
            if let ticket { state.waiting.move(item, ticket: ticket, to: priority) }
        }
    }

    /// `WorkItem.cancel`: a waiting item leaves for good.
    func cancel(_ item: WorkItem) {
        // The work is returned so that it is released outside the locks.
        _ = state.withLock { state -> WorkItem.Work? in
            let dropped = item.fields.withLock { fields -> WorkItem.Work?? in
                guard fields.state == .waiting else { return nil }
                fields.state = .cancelled
                return .some(fields.work.take())
            }
            guard let dropped else { return nil }
            state.waiting.remove()
            return dropped
        }
    }

    /// Ends a running item and frees its slot; later calls do nothing.
    private func finish(_ item: WorkItem) {
        let didFinish = state.withLock { state in
            let wasRunning = item.fields.withLock { fields in
                guard fields.state == .running else { return false }
                fields.state = .finished
                return true
            }
            if wasRunning { state.running -= 1 }
            return wasRunning
        }
        if didFinish { drain() }
    }

    /// Starts waiting items while there are free slots, unless another
    /// thread is doing so already (see *Starting*).
    private func drain() {
        var isDrainer = false
        while true {
            let next = state.withLock { state -> (WorkItem, WorkItem.Work)? in
                if !isDrainer {
                    guard !state.isDraining else { return nil }
                    state.isDraining = true
                    isDrainer = true
                }
                if let next = state.claimNext() { return next }
                state.isDraining = false
                return nil
            }
            guard let next else { return }
            start(next.0, next.1)
        }
    }

    /// Runs a claimed item's work, outside the lock.
    private func start(_ item: WorkItem, _ work: WorkItem.Work) {
        let finish: WorkItem.Finish = { self.finish(item) }
        switch work {
        case .async(let start):
            start(finish)
        case .blocking(let body):
            threads.submit {
                body()
                finish()
            }
        }
    }
}
