/// One job as its hash `warmer:{Q}:job:ID` holds it (docs/wire-format.md),
/// for reading: its URL's password masked, the intake document of a
/// dead-lettered document left out.
public struct JobRecord: Sendable, Hashable, Codable {
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
}
