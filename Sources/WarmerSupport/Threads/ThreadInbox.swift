import Dispatch
import Synchronization

/// Messages for dedicated threads: any thread posts, and the inbox's
/// consumer threads each take, per turn, every message queued since their
/// last turn as one batch.
///
/// This is the one "dedicated thread plus inbox" of Warmer:
/// - a `RedisClient` runs N connection threads consuming one inbox; a turn
///   sends its whole batch as one pipeline (automatic pipelining);
/// - a `WorkQueue`'s blocking threads take one job per turn
///   (`batchLimit: 1`), leaving when their pool has too many;
/// - the curl thread waits in `curl_multi_poll` rather than in the inbox:
///   it takes what is queued with `takeQueued()` on each of its turns, and
///   its poster wakes it with `curl_multi_wakeup`.
///
/// Consumers wait on semaphores of their own: a post wakes at most one
/// waiting consumer, and none while every consumer is busy (a busy one
/// takes the message on its next turn). Messages are taken in the order
/// they were posted. `close()` refuses further messages; the consumers
/// first take what is queued, then return.
public final class ThreadInbox<Message: Sendable>: Sendable {
    /// What became of a posted message.
    public enum Delivery: Sendable, Equatable {
        /// Queued, and a waiting consumer was woken for it.
        case wokeWaitingConsumer
        /// Queued for a consumer that is busy, or that waits elsewhere.
        case queued
        /// Not queued: the inbox is closed. The poster must answer the message itself.
        case refused
    }

    /// What the lock guards.
    private struct State: Sendable {
        /// Messages not yet taken are `messages[head...]`.
        var messages: [Message] = []
        var head = 0
        /// The semaphores of waiting consumers, most recently waiting last.
        var waiting: [DispatchSemaphore] = []
        var isClosed = false

        var hasMessages: Bool { head < messages.count }

        /// Takes the first `limit` messages not yet taken (all of them at most).
        mutating func take(upTo limit: Int) -> [Message] {
            let end = limit >= messages.count - head ? messages.count : head + limit
            let batch = Array(messages[head..<end])
            if end == messages.count {
                messages.removeAll(keepingCapacity: true)
                head = 0
            } else {
                head = end
                // Drop taken slots once they are half the storage, so it never grows with them.
                if head * 2 >= messages.count {
                    messages.removeFirst(head)
                    head = 0
                }
            }
            return batch
        }

        /// Removes and returns the semaphores of every waiting consumer.
        mutating func takeWaiting() -> [DispatchSemaphore] {
            defer { waiting.removeAll() }
            return waiting
        }
    }

    /// A consumer's next step.
    private enum Turn: Sendable {
        case handle([Message]), wait, leave
    }

    private let state = Mutex(State())

    /// Creates an open, empty inbox with no consumer.
    public init() {}

    /// Whether `close()` has been called.
    public var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Queues `message` and wakes a waiting consumer, if any; refuses it
    /// once the inbox is closed.
    @discardableResult
    public func post(_ message: Message) -> Delivery {
        let (delivery, consumer) = state.withLock { state -> (Delivery, DispatchSemaphore?) in
            guard !state.isClosed else { return (.refused, nil) }
            state.messages.append(message)
            guard let consumer = state.waiting.popLast() else { return (.queued, nil) }
            return (.wokeWaitingConsumer, consumer)
        }
        consumer?.signal()
        return delivery
    }

    /// Every message queued so far, in order, without waiting (none if
    /// nothing is queued): for a consumer that waits elsewhere.
    public func takeQueued() -> [Message] {
        state.withLock { $0.take(upTo: .max) }
    }

    /// Refuses further messages and wakes every waiting consumer: each
    /// takes what is still queued, then returns from `consume`.
    public func close() {
        let waiting = state.withLock { state in
            state.isClosed = true
            return state.takeWaiting()
        }
        waiting.forEach { $0.signal() }
    }

    /// Wakes every waiting consumer so that it asks its `shouldLeave`
    /// again (a pool that now wants fewer threads).
    public func wakeWaitingConsumers() {
        state.withLock { $0.takeWaiting() }.forEach { $0.signal() }
    }

    /// Runs the calling thread as one of the inbox's consumers, until the
    /// inbox is closed and drained or `shouldLeave` says so.
    ///
    /// Each turn hands `handle` the messages queued since the last one, in
    /// order: all of them, or the first `batchLimit`. With nothing queued,
    /// the thread waits for a post. `shouldLeave` is asked whenever the
    /// thread finds nothing queued (before it waits, and after each time
    /// it is woken); it runs with the inbox locked, so it must be quick and
    /// must not use the inbox.
    public func consume(
        batchLimit: Int = .max, leavingWhen shouldLeave: () -> Bool = { false }, _ handle: ([Message]) -> Void
    ) {
        let wakeUp = DispatchSemaphore(value: 0)
        while true {
            let turn = state.withLock { state -> Turn in
                if state.hasMessages { return .handle(state.take(upTo: max(1, batchLimit))) }
                if state.isClosed || shouldLeave() { return .leave }
                state.waiting.append(wakeUp)
                return .wait
            }
            switch turn {
            case .handle(let batch): handle(batch)
            case .wait: wakeUp.wait()
            case .leave: return
            }
        }
    }
}
