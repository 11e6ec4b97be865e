/// The Redis keys of one queue (wire format v1, docs/wire-format.md).
///
/// Every key of a queue carries the hash tag `{NAME}`, so on Redis Cluster a
/// queue lives in one slot and its Lua scripts may touch all of its keys.
///
/// This is the one place the layout is written: the queue's fixed keys are
/// `Fixed`, which a Lua script names in its `-- @keys` line and receives in
/// `KEYS` (see `QueueScript`); the keys of one job, batch or worker are
/// built from `prefix`, which the scripts get as their first argument.
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

    /// List of batch documents pushed by producers, and wake-up markers for idle workers.
    public var intake: String { self[.intake] }
    /// List an idle worker moves an intake entry to while waking; drained by the next claim.
    public var pendingIntake: String { self[.pendingIntake] }
    /// Count of the URLs of large documents staged to become jobs a slice
    /// per claim (the staging keys themselves are the scripts' own: staging.lua).
    public var stagedURLs: String { prefix + "intake:staged" }
    /// The large intake document a worker is parsing, as sent (a string;
    /// its lease and pushed URLs are the scripts' own: parsing.lua).
    public var parsingDocument: String { prefix + "intake:parsing:document" }
    /// Sorted set of queued job ids, scored by arrival plus a handicap per priority level.
    public var queue: String { self[.queue] }
    /// Sorted set of jobs waiting for a retry, scored by when they are due (ms since the epoch).
    public var delayed: String { self[.delayed] }
    /// Sorted set of active job ids, scored by lease deadline (ms since the epoch).
    public var leases: String { self[.leases] }
    /// Counter giving job ids.
    public var sequence: String { self[.sequence] }
    /// The queue clock: the last arrival stamp given to a job.
    public var clock: String { self[.clock] }
    /// Hash from a job's work (`destination|processing|url`) to the live job doing it.
    public var work: String { self[.work] }
    /// Stream of every lifecycle event of the queue.
    public var events: String { self[.events] }
    /// Stream of control messages to workers (cancel, priority changes).
    public var control: String { self[.control] }
    /// List of control documents pushed by clients (cancel, priority, dead letters, pause, resume).
    public var commands: String { self[.commands] }
    /// List a waking worker moves a control document to; drained by the next step of any worker.
    public var pendingCommands: String { self[.pendingCommands] }
    /// Hash holding the control document being applied in steps, and its progress.
    public var applyingCommand: String { self[.applyingCommand] }
    /// Sorted set of dead-lettered job ids, scored by time.
    public var dead: String { self[.dead] }
    /// Sorted set of batch ids, scored by creation time.
    public var batches: String { self[.batches] }
    /// Hash of queue-wide settings (`paused`).
    public var config: String { self[.config] }
    /// Sorted set of live worker ids, scored by when their record expires (ms since the epoch).
    public var workers: String { self[.workers] }
    /// Hash of the current second's throughput (`second`, `completed`, `failed`, `bytes`).
    public var metrics: String { self[.metrics] }
    /// List of the last 900 finished seconds' throughput, newest first: `SECOND COMPLETED FAILED BYTES`.
    public var metricsSeconds: String { self[.metricsSeconds] }
    /// String holding the fleet's global rate limit's theoretical arrival time (µs since the epoch, GCRA).
    public var rateGlobal: String { self[.rateGlobal] }
    /// Sorted set of the groups in line for a claim, scored by their head job's score (fair queueing).
    public var groups: String { self[.groups] }
    /// Hash of the fair queueing's state: each band's virtual clock (`clock:B`), the jobs in group queues (`queued`).
    public var fairness: String { self[.fairness] }
    /// Hash from a group's name to its weight (1–1,000; absent: 1), set by operators.
    public var groupWeights: String { self[.groupWeights] }
    /// Hash from a group's name to the most of its jobs running at once, fleet-wide (absent: no limit).
    public var groupLimits: String { self[.groupLimits] }
    /// Sorted set of recently completed work (24 hex digits of the SHA-1 of
    /// `destination|processing|url`), scored by the last completion (ms
    /// since the epoch): what `freshFor` reads.
    public var recent: String { self[.recent] }

    /// The key `fixed` of this queue.
    subscript(fixed: Fixed) -> String { prefix + fixed.suffix }

    /// Hash holding job `id`.
    public func job(_ id: String) -> String { prefix + "job:" + id }
    /// Hash holding batch `id`'s counters.
    public func batch(_ id: String) -> String { prefix + "batch:" + id }
    /// Stream of batch `id`'s events.
    public func batchEvents(_ id: String) -> String { prefix + "batch:" + id + ":events" }
    /// Set of the ids of batch `id`'s jobs that have not ended.
    public func batchJobs(_ id: String) -> String { prefix + "batch:" + id + ":jobs" }
    /// List of batch `id`'s last 1,000 failed and dead-lettered jobs, newest first (JSON entries).
    public func batchFailures(_ id: String) -> String { prefix + "batch:" + id + ":failures" }
    /// String holding `host`'s fleet rate limit's theoretical arrival time (µs since the epoch, GCRA).
    public func rateHost(_ host: String) -> String { prefix + "rate:host:" + host }
    /// Hash holding group `name`'s fair-queueing state (`v`, `credit`, `active`, `head`, `headScore`, `band`).
    public func group(_ name: String) -> String { prefix + "group:" + name }
    /// Sorted set of group `name`'s queued job ids, scored as in `queue`.
    public func groupQueue(_ name: String) -> String { prefix + "group:" + name + ":queue" }
    /// Sorted set of the groups in line whose head job is of priority band `band` (0 veryHigh … 4 veryLow), scored by virtual time.
    public func bandGroups(_ band: Int) -> String { prefix + "groups:band:\(band)" }
    /// Hash holding worker `id`'s heartbeat record.
    public func worker(_ id: String) -> String { prefix + "worker:" + id }
}
