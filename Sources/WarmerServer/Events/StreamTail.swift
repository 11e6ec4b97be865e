import Synchronization

/// The clients of this process that follow one event stream in Redis (a
/// queue's or a batch's), and where that stream has been read up to.
///
/// The stream is read by its queue's `QueueEventReader`, which hands each
/// read to `deliver`, once for every subscriber. Each subscriber gets every
/// event read after it subscribed; `position` tells it where that starts, so
/// it can read what came before from the stream's history (`XRANGE`)
/// without a gap or a repeat. A subscriber that falls `bufferLimit` messages
/// behind is dropped (its stream ends) rather than holding memory for it:
/// its client reconnects with `Last-Event-ID` and catches up from the
/// history.
final class StreamTail: Sendable {
    /// What a subscriber receives.
    enum Message: Sendable {
        /// Events read, oldest first, framed once for every subscriber.
        case events(EncodedEvents)
        /// Nothing arrived for a keep-alive interval.
        case idle
    }

    /// A subscriber's end.
    struct Subscription: Sendable {
        let id: Int
        /// Every event after `position`, as it is read.
        let messages: AsyncStream<Message>
        /// The last event before the subscription's first.
        let position: StreamID
    }

    private struct State {
        var lastID: StreamID
        /// When the subscribers were last handed something (events or a keep-alive).
        var lastDelivery: ContinuousClock.Instant
        var subscribers: [Int: AsyncStream<Message>.Continuation] = [:]
        var nextID = 0
    }

    /// The batch whose stream this is; `nil` for the queue's own.
    let batch: String?
    private let bufferLimit: Int
    private let state: Mutex<State>

    /// The followers of `batch`'s stream (the queue's when `nil`), which is
    /// to be read from after `start`.
    init(batch: String?, after start: StreamID, bufferLimit: Int = 256) {
        self.batch = batch
        self.bufferLimit = bufferLimit
        self.state = Mutex(State(lastID: start, lastDelivery: .now))
    }

    /// Where the stream has been read up to: the next read starts after it.
    var position: StreamID { state.withLock { $0.lastID } }

    /// When the subscribers are next due a keep-alive, if nothing arrives
    /// meanwhile: `interval` after they were last handed something.
    func keepAliveDue(every interval: Duration) -> ContinuousClock.Instant {
        state.withLock { $0.lastDelivery } + interval
    }

    /// A new subscriber.
    func subscribe() -> Subscription {
        let (messages, continuation) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .bufferingOldest(bufferLimit))
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            return Subscription(id: id, messages: messages, position: state.lastID)
        }
    }

    /// Removes subscriber `id`, ending its messages; returns how many are left.
    @discardableResult
    func unsubscribe(_ id: Int) -> Int {
        let (continuation, left) = state.withLock { state in (state.subscribers.removeValue(forKey: id), state.subscribers.count) }
        continuation?.finish()
        return left
    }

    /// Ends every subscriber's messages.
    func finishAll() {
        let continuations = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    /// Hands `message` to every subscriber (and moves the position to
    /// `lastID`, in the same lock, so a new subscriber never misses or
    /// repeats one); drops the subscribers whose buffer is full.
    func deliver(_ message: Message, lastID: StreamID?, at now: ContinuousClock.Instant = .now) {
        let lagging: [AsyncStream<Message>.Continuation] = state.withLock { state in
            if let lastID { state.lastID = lastID }
            state.lastDelivery = now
            var dropped: [AsyncStream<Message>.Continuation] = []
            for (id, continuation) in state.subscribers {
                if case .dropped = continuation.yield(message) {
                    state.subscribers[id] = nil
                    dropped.append(continuation)
                }
            }
            return dropped
        }
        for continuation in lagging { continuation.finish() }
    }
}
