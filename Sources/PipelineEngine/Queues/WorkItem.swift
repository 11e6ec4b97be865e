import Synchronization

/// One operation submitted to a `WorkQueue`: the handle to reprioritise or
/// cancel it while it waits, and to observe its state.
///
/// Created only by `WorkQueue.enqueue` and `enqueueBlocking`. An item goes
/// `waiting` → `running` → `finished`, or `waiting` → `cancelled`; nothing
/// else. Once it runs, `setPriority` and `cancel` have no effect: stopping
/// running work is the caller's business.
///
/// ## Locking
/// The fields live in the item's own `Mutex`. Every change that the queue
/// must see (start, finish, move, cancel) happens while the owning queue's
/// lock is also held, which is always taken first; the item's lock is the
/// innermost lock, and nothing is called out while it is held.
final class WorkItem: Sendable {
    /// Marks the end of an asynchronous operation and releases its slot.
    /// Calling it more than once is harmless: only the first call counts.
    typealias Finish = @Sendable () -> Void

    /// Where an item is in its life.
    enum State: Sendable, Hashable {
        /// Enqueued, not started: can move or be cancelled.
        case waiting
        /// Started, holding a slot of its queue.
        case running
        /// Ran and released its slot.
        case finished
        /// Cancelled while waiting: it never started and never will.
        case cancelled
    }

    /// What the item runs once started.
    enum Work: Sendable {
        /// An asynchronous operation: called with the `Finish` that ends it.
        case async(@Sendable (_ finish: @escaping Finish) -> Void)
        /// A blocking operation: runs on one of the queue's own threads and
        /// ends when it returns.
        case blocking(@Sendable () -> Void)
    }

    /// The item's mutable state, guarded by `fields`.
    struct Fields: Sendable {
        /// Where the item is in its life.
        var state: State = .waiting
        /// The priority it waits at.
        var priority: ImagePriority
        /// Bumped on each move between FIFOs; a FIFO entry with another
        /// ticket is stale (see `WaitingList`).
        var ticket: UInt32 = 0
        /// The work, until it is taken to run or dropped on cancel.
        var work: Work?
    }

    /// The queue the item waits in. Weak: a waiting item does not keep its
    /// queue alive (the queue holds its waiting items).
    private weak let queue: WorkQueue?
    /// The item's mutable state. Only `WorkQueue` changes it, holding its
    /// own lock first.
    let fields: Mutex<Fields>

    /// Creates a waiting item. Only `WorkQueue` calls it.
    init(priority: ImagePriority, work: Work, queue: WorkQueue) {
        self.queue = queue
        self.fields = Mutex(Fields(priority: priority, work: work))
    }

    /// Where the item is in its life now.
    var state: State { fields.withLock { $0.state } }

    /// The priority it waits (or waited) at.
    var priority: ImagePriority { fields.withLock { $0.priority } }

    /// Changes the priority of a waiting item, moving it to the back of the
    /// new priority's FIFO (as Nuke does). Setting the priority it already
    /// has keeps its place. No effect once it has started or was cancelled.
    func setPriority(_ priority: ImagePriority) {
        if let queue {
            queue.move(self, to: priority)
        } else {
            // The queue is gone, and with it any chance to start: just record it.
            fields.withLock { if $0.state == .waiting { $0.priority = priority } }
        }
    }

    /// Cancels a waiting item: it leaves its queue and never starts. No
    /// effect once it has started (or finished, or was cancelled already).
    func cancel() {
        if let queue {
            queue.cancel(self)
        } else {
            // The work is returned so that it is released outside the lock.
            _ = fields.withLock { fields -> Work? in
                guard fields.state == .waiting else { return nil }
                fields.state = .cancelled
                return fields.work.take()
            }
        }
    }

    /// Whether the item is waiting and `ticket` is its current ticket: the
    /// test for a live `WaitingList` entry.
    func isWaiting(ticket: UInt32) -> Bool {
        fields.withLock { $0.state == .waiting && $0.ticket == ticket }
    }

    /// Starts the item if the entry with `ticket` is live: the state becomes
    /// `running` and the work is handed over. `nil` for a stale entry.
    func claim(ticket: UInt32) -> Work? {
        fields.withLock { fields in
            guard fields.state == .waiting, fields.ticket == ticket else { return nil }
            fields.state = .running
            return fields.work.take()
        }
    }
}
