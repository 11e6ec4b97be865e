/// The Redis keys of one queue (wire format v1, docs/wire-format.md).
///
/// Every key of a queue carries the hash tag `{NAME}`, so on Redis Cluster a
/// queue lives in one slot and its Lua scripts may touch all of its keys.
public struct QueueKeys: Sendable, Hashable {
    /// The queue's name.
    public let name: String
    /// The prefix every key of the queue starts with: `warmer:{NAME}:`.
    public let prefix: String

    /// Validates `name`: 1–64 characters from `A–Z a–z 0–9 . _ -`.
    public init(queue name: String) throws(SchedulerError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard (1...64).contains(name.count), name.allSatisfy(allowed.contains) else {
            throw .invalidQueueName(name)
        }
        self.name = name
        self.prefix = "warmer:{\(name)}:"
    }

    /// Sorted set of queued job ids, scored by priority band then FIFO order.
    public var queue: String { prefix + "queue" }
    /// Sorted set of active job ids, scored by lease deadline (ms since epoch).
    public var leases: String { prefix + "leases" }
    /// List used as a wake-up marker for idle workers (BLPOP).
    public var wake: String { prefix + "wake" }
    /// Counter giving job ids and FIFO order.
    public var sequence: String { prefix + "seq" }
    /// Stream of every lifecycle event of the queue.
    public var events: String { prefix + "events" }
    /// Sorted set of dead-lettered job ids, scored by time.
    public var dead: String { prefix + "dead" }
    /// Sorted set of batch ids, scored by creation time.
    public var batches: String { prefix + "batches" }

    /// Hash holding job `id`.
    public func job(_ id: String) -> String { prefix + "job:" + id }
    /// Hash holding batch `id`'s counters.
    public func batch(_ id: String) -> String { prefix + "batch:" + id }
    /// Stream of batch `id`'s events.
    public func batchEvents(_ id: String) -> String { prefix + "batch:" + id + ":events" }
}
