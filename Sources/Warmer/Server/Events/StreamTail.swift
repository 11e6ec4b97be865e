import Logging
import RedisKit
import Scheduler
import Synchronization

/// One reader of one event stream in Redis (a queue's or a batch's),
/// shared by every client of this process that follows it.
///
/// However many clients watch a batch, Redis serves one blocking `XREAD`
/// for it per `serve` process, so that watchers cost Redis (and the
/// workers sharing it) nothing per watcher. Each subscriber gets every
/// event read after it subscribed; `position` tells it where that starts,
/// so it can read what came before from the stream's history (`XRANGE`)
/// without a gap or a repeat. A subscriber that falls `bufferLimit`
/// messages behind is dropped (its stream ends) rather than holding
/// memory for it: its client reconnects with `Last-Event-ID` and catches
/// up from the history.
///
/// While events flow, the reader pauses `coalescing` after each read, so
/// that the next one brings many events at once: subscribers then write a
/// few large chunks a second rather than one small one per event (with 200
/// watchers of a busy batch, those writes, not Redis, were the cost). Events
/// reach clients at most that much later.
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
        var subscribers: [Int: AsyncStream<Message>.Continuation] = [:]
        var nextID = 0
    }

    private let events: EventStream
    private let batch: String?
    private let client: RedisClient
    private let keepAlive: Duration
    private let coalescing: Duration
    private let bufferLimit: Int
    private let logger: Logger
    private let state: Mutex<State>
    private let reader = Mutex<Task<Void, Never>?>(nil)

    /// A reader of `batch`'s stream (the queue's when `nil`) from after
    /// `start`, reading with `client` (its own: XREAD BLOCK holds it).
    init(events: EventStream, batch: String?, after start: StreamID, client: RedisClient, keepAlive: Duration,
         coalescing: Duration = .milliseconds(100), bufferLimit: Int = 256, logger: Logger) {
        self.events = events
        self.batch = batch
        self.client = client
        self.keepAlive = keepAlive
        self.coalescing = coalescing
        self.bufferLimit = bufferLimit
        self.logger = logger
        self.state = Mutex(State(lastID: start))
    }

    /// Starts reading.
    func start() {
        reader.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in await read() }
        }
    }

    /// Stops reading and ends every subscriber's stream.
    func stop() {
        reader.withLock { $0?.cancel() }
        let continuations = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
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

    /// Removes subscriber `id`; returns how many are left.
    @discardableResult
    func unsubscribe(_ id: Int) -> Int {
        let (continuation, left) = state.withLock { state in (state.subscribers.removeValue(forKey: id), state.subscribers.count) }
        continuation?.finish()
        return left
    }

    /// Subscribers now.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// The most events one read brings.
    private static let readCount = 10_000

    private func read() async {
        while !Task.isCancelled {
            let after = state.withLock { $0.lastID }
            do {
                let read = try await events.read(batch: batch, after: .after(after.description), timeout: keepAlive,
                                                 count: Self.readCount, using: client)
                guard !read.isEmpty else {
                    deliver(.idle, lastID: nil)
                    continue
                }
                let encoded = EncodedEvents(read)
                deliver(.events(encoded), lastID: encoded.lastID)
                // A full read means more are waiting: read on at once.
                if read.count < Self.readCount { try? await Task.sleep(for: coalescing) }
            } catch {
                logger.warning("event stream read failed; retrying", metadata: ["batch": "\(batch ?? "")", "error": "\(error)"])
                deliver(.idle, lastID: nil)
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Hands `message` to every subscriber (and moves the position, in the
    /// same lock, so a new subscriber never misses or repeats one); drops
    /// the subscribers whose buffer is full.
    private func deliver(_ message: Message, lastID: StreamID?) {
        let lagging: [AsyncStream<Message>.Continuation] = state.withLock { state in
            if let lastID { state.lastID = lastID }
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
