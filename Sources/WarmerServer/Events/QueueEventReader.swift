import Logging
import RedisKit
import Scheduler
import Synchronization

/// The one reader, in this process, of a queue's event streams: every
/// stream of the queue that a client of this process follows (the queue's
/// own and each batch's `StreamTail`) is read by one blocking `XREAD`, on
/// one Redis connection of its own.
///
/// However many clients follow however many batches, each `serve` process
/// therefore holds one blocked connection per queue followed, and Redis
/// serves one read for them all (every key of a queue is in one hash slot,
/// so a Redis Cluster serves it too). A stream followed for the first time
/// joins at the next read: each read blocks at most `joinLatency`, so a new
/// stream's first live events may come that much later; none is lost, as
/// the stream is read from where its tail starts.
///
/// A stream that got nothing for `keepAlive` is handed `.idle`, and its
/// clients write a keep-alive comment. While events flow, the reader pauses
/// `coalescing` after each read, so that the next one brings many events
/// at once: subscribers then write a few large chunks a second rather than
/// one small one per event (with 200 watchers of a busy batch, those
/// writes, not Redis, were the cost). Events reach clients at most that
/// much later.
final class QueueEventReader: Sendable {
    private let events: EventStream
    private let client: RedisClient
    private let keepAlive: Duration
    private let joinLatency: Duration
    private let coalescing: Duration
    private let logger: Logger
    private let tails = Mutex<[String?: StreamTail]>([:])
    private let reader = Mutex<Task<Void, Never>?>(nil)

    /// The most events one read brings, over all its streams.
    private static let readCount = 10_000

    /// A reader of `events`' streams with `client`, which must be its own:
    /// `XREAD BLOCK` holds the connection for its whole wait.
    init(events: EventStream, client: RedisClient, keepAlive: Duration, joinLatency: Duration = .milliseconds(500),
         coalescing: Duration = .milliseconds(100), logger: Logger) {
        self.events = events
        self.client = client
        self.keepAlive = keepAlive
        self.joinLatency = joinLatency
        self.coalescing = coalescing
        self.logger = logger
    }

    /// The tail of `batch`'s stream (the queue's when `nil`), if it is followed.
    func tail(batch: String?) -> StreamTail? {
        tails.withLock { $0[batch] }
    }

    /// Follows `tail`'s stream from its position (starting to read with the
    /// first); returns the tail already following that stream instead, if any.
    func follow(_ tail: StreamTail) -> StreamTail {
        let followed = tails.withLock { tails in
            if let existing = tails[tail.batch] { return existing }
            tails[tail.batch] = tail
            return tail
        }
        reader.withLock { task in
            if task == nil { task = Task { [self] in await read() } }
        }
        return followed
    }

    /// Stops following `tail`'s stream; returns how many streams are still followed.
    func unfollow(_ tail: StreamTail) -> Int {
        tails.withLock { tails in
            if tails[tail.batch] === tail { tails[tail.batch] = nil }
            return tails.count
        }
    }

    /// Whether `tail` is one this reader follows.
    func follows(_ tail: StreamTail) -> Bool {
        tails.withLock { $0[tail.batch] === tail }
    }

    /// Stops reading, and ends every subscriber's messages.
    func stop() {
        reader.withLock { $0?.cancel() }
        let followed = tails.withLock { tails in
            defer { tails.removeAll() }
            return Array(tails.values)
        }
        for tail in followed { tail.finishAll() }
    }

    private func read() async {
        while !Task.isCancelled {
            let followed = tails.withLock { Array($0.values) }
            guard !followed.isEmpty else {
                try? await Task.sleep(for: joinLatency)
                continue
            }
            let dueFirst = followed.map { $0.keepAliveDue(every: keepAlive) }.min() ?? .now + keepAlive
            let wait = min(joinLatency, max(.milliseconds(1), dueFirst - .now))
            let count = max(100, Self.readCount / followed.count)
            let positions = Dictionary(followed.map { ($0.batch, EventStream.Position.after($0.position.description)) },
                                       uniquingKeysWith: { first, _ in first })
            do {
                let read = try await events.read(after: positions, timeout: wait, count: count, using: client)
                let now = ContinuousClock.now
                var someFull = false
                for tail in followed {
                    if let page = read[tail.batch] {
                        // Entries of no known type move the position too, without an event.
                        tail.deliver(.events(EncodedEvents(page.events)), lastID: StreamID(page.lastID), at: now)
                        someFull = someFull || page.entryCount >= count
                    } else if tail.keepAliveDue(every: keepAlive) <= now {
                        tail.deliver(.idle, lastID: nil, at: now)
                    }
                }
                // A full read means more are waiting: read on at once.
                if !read.isEmpty, !someFull { try? await Task.sleep(for: coalescing) }
            } catch {
                logger.warning("event stream read failed; retrying", metadata: [
                    "streams": "\(followed.count)", "error": "\(error)",
                ])
                let now = ContinuousClock.now
                for tail in followed where tail.keepAliveDue(every: keepAlive) <= now {
                    tail.deliver(.idle, lastID: nil, at: now)
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
