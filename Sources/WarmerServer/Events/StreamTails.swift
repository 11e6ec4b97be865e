import Logging
import RedisKit
import Scheduler

/// The event streams this process follows: one `QueueEventReader` per
/// queue, made when a client first follows one of its streams and stopped
/// (its Redis connection closed) when the last one leaves, and one
/// `StreamTail` per stream followed.
package actor StreamTails {
    /// The readers, by the key of their queue's own stream.
    private var readers: [String: QueueEventReader] = [:]
    private let makeClient: @Sendable () throws -> RedisClient
    private let keepAlive: Duration
    private let logger: Logger

    /// - Parameter makeClient: a new client for one reader's blocking reads.
    package init(keepAlive: Duration, logger: Logger, makeClient: @escaping @Sendable () throws -> RedisClient) {
        self.keepAlive = keepAlive
        self.logger = logger
        self.makeClient = makeClient
    }

    /// Subscribes to `batch`'s stream of `queue` (the queue's own when `nil`).
    func subscribe(queue: JobQueue, batch: String?) async throws -> (StreamTail, StreamTail.Subscription) {
        if let tail = readers[queue.keys.events]?.tail(batch: batch) { return (tail, tail.subscribe()) }
        let events = EventStream(queue: queue)
        let last = try await events.lastID(batch: batch).flatMap { StreamID($0) } ?? .zero
        // Another client may have followed the stream while this one asked
        // Redis (then `follow` returns its tail), or the reader may have stopped.
        let tail = try reader(of: events).follow(StreamTail(batch: batch, after: last))
        return (tail, tail.subscribe())
    }

    /// Ends subscription `id` of `tail`; with its last subscriber, stops
    /// following the stream, and with the queue's last stream, stops its reader.
    func unsubscribe(_ id: Int, from tail: StreamTail) {
        guard tail.unsubscribe(id) == 0,
              let (key, reader) = readers.first(where: { $0.value.follows(tail) }),
              reader.unfollow(tail) == 0 else { return }
        readers[key] = nil
        reader.stop()
    }

    /// The reader of `events`' queue, made if there is none.
    private func reader(of events: EventStream) throws -> QueueEventReader {
        let key = events.queue.keys.events
        if let reader = readers[key] { return reader }
        let reader = QueueEventReader(events: events, client: try makeClient(), keepAlive: keepAlive, logger: logger)
        readers[key] = reader
        return reader
    }
}
