/// One entry of a queue's dead-letter set.
public struct DeadLetter: Sendable, Hashable {
    /// The job id (`doc-N` for an intake or control document).
    public let id: String
    /// When it was dead-lettered, ms since the epoch: the job hash's
    /// `finishedAt`, or the entry's score once the hash expired.
    public let deadLetteredAt: Int64
    /// The job hash (see docs/wire-format.md), empty when it expired.
    public let fields: [String: String]

    /// Whether this is an intake or control document that did not parse or validate.
    public var isDocument: Bool { fields["kind"] == "document" || isControlDocument }
    /// Whether this is a control document (`warmer:{Q}:commands`) that did not parse, validate or apply.
    public var isControlDocument: Bool { fields["kind"] == "control" }
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
