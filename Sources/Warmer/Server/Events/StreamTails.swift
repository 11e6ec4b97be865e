import Logging
import RedisKit
import Scheduler

/// The stream readers of this process (`StreamTail`), one per stream
/// followed, made when its first client comes and stopped when its last
/// one leaves.
actor StreamTails {
    private var tails: [String: StreamTail] = [:]
    private let makeClient: @Sendable () throws -> RedisClient
    private let keepAlive: Duration
    private let logger: Logger

    /// - Parameter makeClient: a new client for one reader's blocking reads.
    init(keepAlive: Duration, logger: Logger, makeClient: @escaping @Sendable () throws -> RedisClient) {
        self.keepAlive = keepAlive
        self.logger = logger
        self.makeClient = makeClient
    }

    /// Subscribes to `batch`'s stream of `queue` (the queue's own when `nil`).
    func subscribe(queue: JobQueue, batch: String?) async throws -> (StreamTail, StreamTail.Subscription) {
        let key = batch.map { queue.keys.batchEvents($0) } ?? queue.keys.events
        if let tail = tails[key] { return (tail, tail.subscribe()) }
        let events = EventStream(queue: queue)
        let last = try await events.lastID(batch: batch).flatMap { StreamID($0) } ?? .zero
        // Another client may have made the reader while this one asked Redis.
        if let tail = tails[key] { return (tail, tail.subscribe()) }
        let tail = StreamTail(events: events, batch: batch, after: last, client: try makeClient(), keepAlive: keepAlive,
                              logger: logger)
        tails[key] = tail
        tail.start()
        return (tail, tail.subscribe())
    }

    /// Ends subscription `id` of `tail`, and the reader with its last one.
    func unsubscribe(_ id: Int, from tail: StreamTail) {
        guard tail.unsubscribe(id) == 0 else { return }
        guard let key = tails.first(where: { $0.value === tail })?.key else { return }
        tails[key] = nil
        tail.stop()
    }

    /// Readers running now.
    var count: Int { tails.count }
}
