/// One entry of a queue's dead-letter set.
public struct DeadLetter: Sendable, Hashable {
    /// The job id (`doc-N` for an intake document).
    public let id: String
    /// When it was dead-lettered, ms since the epoch.
    public let deadLetteredAt: Int64
    /// The job hash (see docs/wire-format.md), empty when it expired.
    public let fields: [String: String]

    /// Whether this is an intake document that did not parse or validate.
    public var isDocument: Bool { fields["kind"] == "document" }
    /// `failed` (the job ran and failed for good) or `dead` (it could not run).
    public var state: String? { fields["state"] }
    /// The error code, e.g. `http_404`, `invalid_url`, `stalled`, `malformed_document`.
    public var error: String? { fields["error"] }
    /// The human-readable reason.
    public var message: String? { fields["message"] }
    /// The job's URL (absent for a document).
    public var url: String? { fields["url"] }
    /// The batches the job counts in.
    public var batches: [String] {
        fields.keys.filter { $0.hasPrefix("b:") }.map { String($0.dropFirst(2)) }.sorted()
    }
}
