import RedisKit
import WarmerSupport

/// Publishes and reads a queue's lifecycle events.
///
/// Each event goes to the queue-wide stream and to its batch's stream, both
/// trimmed approximately (`MAXLEN ~`). Final events (completed, failed,
/// deadLettered, batchCompleted) and `started`, `delayed`, `stalled` and
/// `cancelled` are published by the queue's scripts, atomically with the
/// state change; workers publish `progress` and `retrying` through a script
/// that drops them once the worker no longer holds the job's lease.
public struct EventStream: Sendable {
    /// The queue whose events these are.
    public let queue: JobQueue

    /// Creates an event stream for `queue`.
    public init(queue: JobQueue) {
        self.queue = queue
    }

    /// Publishes `event` to the queue's stream and its batch's stream, with
    /// the password of any URL in its fields masked (`URLCredentials`).
    public func publish(_ event: JobEvent) async throws(SchedulerError) {
        try await publish([event])
    }

    /// Publishes a `kind` event of `job` in each batch the job counts in
    /// now, if `job`'s lease is still the job's current one.
    /// - Returns: whether it was published (false: the lease was lost, and
    ///   another worker may run the job).
    @discardableResult
    public func publish(
        _ kind: JobEvent.Kind, of job: Job, worker: String, extra: [String: String] = [:]
    ) async throws(SchedulerError) -> Bool {
        var fields = JobEvent(kind, job: job, worker: worker, extra: extra).fields
        fields["batch"] = nil
        let arguments = [job.id, job.leaseToken] + fields.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
        return try await queue.run(QueueScripts.publishWhileLeased, arguments).integer == 1
    }

    /// Publishes `events` in one round trip.
    private func publish(_ events: [JobEvent]) async throws(SchedulerError) {
        let keys = queue.keys
        let configuration = queue.configuration
        var commands: [[String]] = []
        for event in events {
            // URLs and messages quoting them never publish a password.
            let fields = event.streamArguments.map(URLCredentials.masked)
            commands.append(["XADD", keys.events, "MAXLEN", "~", String(configuration.maximumEvents), "*"] + fields)
            if let batch = event.batchID, !batch.isEmpty {
                commands.append(["XADD", keys.batchEvents(batch), "MAXLEN", "~", String(configuration.maximumBatchEvents), "*"]
                    + fields)
            }
        }
        let replies: [RedisReply]
        do {
            replies = try await queue.client.pipeline(commands)
        } catch {
            throw .redis(error)
        }
        for case .error(let message) in replies { throw .redis(.server(message)) }
    }

    /// Where the queue's stream ends now: reading after it gives every
    /// event published from this moment on, however long the reader takes
    /// between reads (`.now` means "after the read starts", anew for each).
    public func end() async throws(SchedulerError) -> Position {
        let reply = try await queue.send(["XREVRANGE", queue.keys.events, "+", "-", "COUNT", "1"])
        guard let id = reply.array.first?.array.first?.string else { return .beginning }
        return .after(id)
    }

    /// Where to start reading.
    public enum Position: Sendable, Hashable {
        /// From the first retained event.
        case beginning
        /// Only events published after the read starts.
        case now
        /// After the event with this stream id.
        case after(String)

        var streamID: String {
            switch self {
            case .beginning: "0"
            case .now: "$"
            case .after(let id): id
            }
        }
    }

    /// The events of the queue (or of one batch) after stream id `after`
    /// (`"0"`: from the first retained), at most `count`, oldest first,
    /// without waiting: a page of the retained history.
    public func range(batch: String? = nil, after id: String, count: Int = 1000) async throws(SchedulerError) -> [JobEvent] {
        let key = batch.map { queue.keys.batchEvents($0) } ?? queue.keys.events
        let reply = try await queue.send(["XRANGE", key, "(" + id, "+", "COUNT", String(max(1, count))])
        return Self.events(in: reply.array)
    }

    /// The last event's stream id of the queue (or of one batch); `nil` when the stream is empty.
    public func lastID(batch: String? = nil) async throws(SchedulerError) -> String? {
        let key = batch.map { queue.keys.batchEvents($0) } ?? queue.keys.events
        return try await queue.send(["XREVRANGE", key, "+", "-", "COUNT", "1"]).array.first?.array.first?.string
    }

    /// `[[id, [field, value, …]], …]` as events (entries of no known type left out).
    private static func events(in entries: [RedisReply]) -> [JobEvent] {
        entries.compactMap { entry in
            guard entry.array.count == 2, let id = entry.array[0].string else { return nil }
            return JobEvent(streamID: id, fields: entry.array[1].fieldDictionary)
        }
    }

    /// Reads the next events of the queue (or of one batch) after `position`,
    /// waiting up to `timeout` for some to arrive. Pass a client reserved for
    /// blocking reads. Returns an empty array on timeout.
    public func read(
        batch: String? = nil, after position: Position, timeout: Duration, count: Int = 1000, using blockingClient: RedisClient
    ) async throws(SchedulerError) -> [JobEvent] {
        try await read(after: [batch: position], timeout: timeout, count: count, using: blockingClient)[batch]?.events ?? []
    }

    /// What one read brought from one stream.
    public struct Page: Sendable {
        /// The events, oldest first (entries of no known type left out).
        public let events: [JobEvent]
        /// The stream id of the last entry read, known type or not: where
        /// the next read of this stream starts.
        public let lastID: String
        /// How many entries were read, known type or not.
        public let entryCount: Int
    }

    /// Reads the next events of several of the queue's streams at once, each
    /// after its own position (keyed by batch; `nil` is the queue's own
    /// stream), waiting up to `timeout` for any of them to have some: one
    /// blocking `XREAD` for them all, which a Redis Cluster serves too, since
    /// every key of a queue lives in one hash slot. At most `count` entries
    /// per stream; the streams with none are left out, and so is every
    /// stream on timeout or when the caller's task is cancelled (it stops
    /// waiting at once).
    public func read(
        after positions: [String?: Position], timeout: Duration, count: Int = 1000, using blockingClient: RedisClient
    ) async throws(SchedulerError) -> [String?: Page] {
        guard !positions.isEmpty else { return [:] }
        let keys = queue.keys
        let streams = positions.map { batch, position in (key: batch.map(keys.batchEvents) ?? keys.events, batch: batch, position: position) }
        let batchOfKey = Dictionary(streams.map { ($0.key, $0.batch) }, uniquingKeysWith: { first, _ in first })
        let reply: RedisReply
        do {
            reply = try await blockingClient.sendBlocking(
                ["XREAD", "COUNT", String(max(1, count)), "BLOCK", String(max(1, timeout.milliseconds)), "STREAMS"]
                    + streams.map(\.key) + streams.map(\.position.streamID))
        } catch {
            throw .redis(error)
        }
        // [[key, [[id, [field, value, …]], …]], …], or nil on timeout
        var pages: [String?: Page] = [:]
        for stream in reply.array where stream.array.count == 2 {
            let entries = stream.array[1].array
            guard let key = stream.array[0].string, let batch = batchOfKey[key],
                  let lastID = entries.last?.array.first?.string else { continue }
            pages[batch] = Page(events: Self.events(in: entries), lastID: lastID, entryCount: entries.count)
        }
        return pages
    }
}
