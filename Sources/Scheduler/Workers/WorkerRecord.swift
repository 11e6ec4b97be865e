/// One live worker's heartbeat record, as read from its hash
/// `warmer:{Q}:worker:ID` (docs/worker-registry.md).
///
/// Encodes to the JSON object `warmer workers --json` prints: the hash's
/// fields under the same names, `jobs` as an array, and `heartbeatAgeMs`.
public struct WorkerRecord: Sendable, Hashable, Codable {
    /// The worker id, `host:pid:random`.
    public var id: String
    /// The worker's host name.
    public var host: String
    /// The worker's process id.
    public var pid: Int
    /// The `warmer` version the worker runs.
    public var version: String
    /// Jobs the worker runs at once.
    public var concurrency: Int
    /// Slots holding a job at the last heartbeat.
    public var busySlots: Int
    /// Ids of the jobs held at the last heartbeat.
    public var runningJobIDs: [String]
    /// When the worker first beat, in ms since the epoch (Redis clock).
    public var startedAt: Int
    /// The last heartbeat, in ms since the epoch (Redis clock).
    public var heartbeatAt: Int
    /// When the record lapses without another beat, in ms since the epoch (Redis clock).
    public var expiresAt: Int
    /// The lease period the record lives for without a beat, in ms.
    public var leaseMilliseconds: Int
    /// Time from the last heartbeat to the moment the record was read, in ms (Redis clock).
    public var heartbeatAge: Int

    private enum CodingKeys: String, CodingKey {
        case id, host, pid, version, concurrency, startedAt, heartbeatAt, expiresAt
        case busySlots = "busy", runningJobIDs = "jobs", leaseMilliseconds = "lease", heartbeatAge = "heartbeatAgeMs"
    }

    /// Reads a record from its hash's fields, read at `now` (ms, Redis
    /// clock); nil when a field is missing or malformed.
    init?(fields: [String: String], readAt now: Int) {
        guard let id = fields["id"], let host = fields["host"], let version = fields["version"],
              let pid = fields["pid"].flatMap(Int.init), let concurrency = fields["concurrency"].flatMap(Int.init),
              let busy = fields["busy"].flatMap(Int.init), let jobs = fields["jobs"],
              let startedAt = fields["startedAt"].flatMap(Int.init), let heartbeatAt = fields["heartbeatAt"].flatMap(Int.init),
              let expiresAt = fields["expiresAt"].flatMap(Int.init), let lease = fields["lease"].flatMap(Int.init)
        else { return nil }
        self.id = id
        self.host = host
        self.pid = pid
        self.version = version
        self.concurrency = concurrency
        self.busySlots = busy
        self.runningJobIDs = jobs.split(separator: ",").map(String.init)
        self.startedAt = startedAt
        self.heartbeatAt = heartbeatAt
        self.expiresAt = expiresAt
        self.leaseMilliseconds = lease
        self.heartbeatAge = max(0, now - heartbeatAt)
    }
}
