/// A batch's counters, as stored in `warmer:{Q}:batch:ID`. Encoded as
/// `warmer status BATCH` and the HTTP API write it: each time in ms since
/// the epoch with its ISO 8601 UTC twin (`createdAtUTC`, `finishedAtUTC`,
/// `cancelledAtUTC`), a field the hash does not hold left out.
public struct BatchStatus: Sendable, Hashable, Encodable {
    /// The batch id.
    public let id: String
    /// Jobs in the batch.
    public let total: Int
    /// Jobs completed, with the URLs counted as completed because their
    /// work completed within the batch's `freshFor` (`recent`).
    public let completed: Int
    /// URLs counted as completed without a job: their work had completed
    /// within the batch's `freshFor`.
    public let recent: Int
    /// Jobs failed.
    public let failed: Int
    /// Jobs cancelled.
    public let cancelled: Int
    /// Jobs dead-lettered.
    public let dead: Int
    /// Jobs not yet ended.
    public let pending: Int
    /// Whether every job has ended.
    public let isFinished: Bool
    /// Creation time, ms since the epoch.
    public let createdAt: Int64?
    /// Completion time, ms since the epoch.
    public let finishedAt: Int64?
    /// When the batch was cancelled (`warmer cancel`), ms since the epoch.
    public let cancelledAt: Int64?
    /// The priority the batch was enqueued with.
    public let priority: String?
    /// The destination the batch was enqueued with.
    public let destination: String?
    /// The processing spec the batch was enqueued with; `nil` when empty.
    public let processing: String?

    init?(fields: [String: String]) {
        guard let id = fields["id"], let total = fields["total"].flatMap({ Int($0) }) else { return nil }
        self.id = id
        self.total = total
        completed = fields["completed"].flatMap { Int($0) } ?? 0
        recent = fields["recent"].flatMap { Int($0) } ?? 0
        failed = fields["failed"].flatMap { Int($0) } ?? 0
        cancelled = fields["cancelled"].flatMap { Int($0) } ?? 0
        dead = fields["dead"].flatMap { Int($0) } ?? 0
        pending = max(0, Self.sum([total] + [completed, failed, cancelled, dead].map { $0 == .min ? .max : -$0 }))
        finishedAt = fields["finishedAt"].flatMap { Int64($0) }
        isFinished = finishedAt != nil
        createdAt = fields["createdAt"].flatMap { Int64($0) }
        cancelledAt = fields["cancelledAt"].flatMap { Int64($0) }
        priority = fields["priority"]
        destination = fields["destination"]
        processing = fields["processing"].flatMap { $0.isEmpty ? nil : $0 }
    }

    private enum CodingKeys: String, CodingKey {
        case id, total, completed, recent, failed, cancelled, dead, pending, isFinished
        case createdAt, createdAtUTC, finishedAt, finishedAtUTC, cancelledAt, cancelledAtUTC
        case priority, destination, processing
    }

    /// Writes the counters, and each time with its `…UTC` twin.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(total, forKey: .total)
        try container.encode(completed, forKey: .completed)
        try container.encode(recent, forKey: .recent)
        try container.encode(failed, forKey: .failed)
        try container.encode(cancelled, forKey: .cancelled)
        try container.encode(dead, forKey: .dead)
        try container.encode(pending, forKey: .pending)
        try container.encode(isFinished, forKey: .isFinished)
        try container.encodeTime(createdAt, forKey: .createdAt, twin: .createdAtUTC)
        try container.encodeTime(finishedAt, forKey: .finishedAt, twin: .finishedAtUTC)
        try container.encodeTime(cancelledAt, forKey: .cancelledAt, twin: .cancelledAtUTC)
        try container.encodeIfPresent(priority, forKey: .priority)
        try container.encodeIfPresent(destination, forKey: .destination)
        try container.encodeIfPresent(processing, forKey: .processing)
    }

    /// Jobs that ended, in any way.
    public var ended: Int { Self.sum([completed, failed, cancelled, dead]) }

    /// The sum of `values`, saturating at `Int.min` and `Int.max`: the counters
    /// are whatever the batch hash holds, and reading them must not trap.
    private static func sum(_ values: [Int]) -> Int {
        values.reduce(0) { total, value in
            let (result, overflow) = total.addingReportingOverflow(value)
            return overflow ? (value < 0 ? .min : .max) : result
        }
    }

    /// Whether every job completed (nothing failed, was cancelled or dead-lettered).
    public var isSuccessful: Bool { isFinished && failed == 0 && cancelled == 0 && dead == 0 }
}
