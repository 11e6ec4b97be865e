/// One job as its hash `warmer:{Q}:job:ID` holds it (docs/wire-format.md),
/// for reading: its URL's password masked, the intake document of a
/// dead-lettered document left out. Encoded as `warmer status --job` and
/// the HTTP API write it: each time in ms since the epoch with its ISO 8601
/// UTC twin (`enqueuedAtUTC`, `claimedAtUTC`, `finishedAtUTC`), a field the
/// hash does not hold left out.
public struct JobRecord: Sendable, Hashable, Encodable {
    /// The job id.
    public let id: String
    /// `queued`, `active`, `delayed`, `cancelling`, `completed`, `failed`, `dead` or `cancelled`.
    public let state: String
    /// The image URL, its password masked; nil for a dead-lettered document.
    public let url: String?
    /// The batches the job counts in, sorted.
    public let batches: [String]
    /// `veryLow` … `veryHigh`.
    public let priority: String?
    /// `disk` or `processed`.
    public let destination: String?
    /// The processing spec; nil for none.
    public let processing: String?
    /// Claims that counted as attempts (0 before the first).
    public let attempt: Int
    /// The error code of its failure, retry or dead-lettering.
    public let error: String?
    /// The human-readable reason (URL passwords masked).
    public let message: String?
    /// The worker holding (or that last held) its lease; nil when none.
    public let worker: String?
    /// When it was enqueued, claimed last and ended, ms since the epoch (Redis clock).
    public let enqueuedAt: Int64?, claimedAt: Int64?, finishedAt: Int64?

    init?(id: String, fields: [String: String]) {
        guard let state = fields["state"] else { return nil }
        self.id = id
        self.state = state
        url = fields["url"].map(URLCredentials.masked)
        batches = fields.keys.filter { $0.hasPrefix("b:") }.map { String($0.dropFirst(2)) }.sorted()
        priority = fields["priority"]
        destination = fields["destination"]
        processing = fields["processing"].flatMap { $0.isEmpty ? nil : $0 }
        attempt = fields["attempts"].flatMap { Int($0) } ?? 0
        error = fields["error"].flatMap { $0.isEmpty ? nil : $0 }
        message = fields["message"].flatMap { $0.isEmpty ? nil : $0 }
        worker = fields["worker"].flatMap { $0.isEmpty ? nil : $0 }
        enqueuedAt = fields["enqueuedAt"].flatMap { Int64($0) }
        claimedAt = fields["claimedAt"].flatMap { Int64($0) }
        finishedAt = fields["finishedAt"].flatMap { Int64($0) }
    }

    private enum CodingKeys: String, CodingKey {
        case id, state, url, batches, priority, destination, processing, attempt, error, message, worker
        case enqueuedAt, enqueuedAtUTC, claimedAt, claimedAtUTC, finishedAt, finishedAtUTC
    }

    /// Writes the record, and each time with its `…UTC` twin.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encode(batches, forKey: .batches)
        try container.encodeIfPresent(priority, forKey: .priority)
        try container.encodeIfPresent(destination, forKey: .destination)
        try container.encodeIfPresent(processing, forKey: .processing)
        try container.encode(attempt, forKey: .attempt)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(message, forKey: .message)
        try container.encodeIfPresent(worker, forKey: .worker)
        try container.encodeTime(enqueuedAt, forKey: .enqueuedAt, twin: .enqueuedAtUTC)
        try container.encodeTime(claimedAt, forKey: .claimedAt, twin: .claimedAtUTC)
        try container.encodeTime(finishedAt, forKey: .finishedAt, twin: .finishedAtUTC)
    }
}
