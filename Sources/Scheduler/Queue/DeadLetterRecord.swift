import Foundation
import WarmerSupport

/// One line of `warmer dead list --json`: a dead letter with typed fields,
/// as docs/wire-format.md's "Dead letters" describes them. Ids, URLs, codes
/// and texts are strings (URL passwords masked), counts and epoch-millisecond
/// times are numbers, each time with its ISO 8601 UTC twin (`…AtUTC`), the
/// batches an array; the job hash's bookkeeping (`score`, `lease`, `claims`,
/// `b:BATCH`…) is left out. A field the job hash does not hold is absent.
public struct DeadLetterRecord: Encodable, Sendable {
    /// The job id, or `doc-N` for an intake or control document.
    public let id: String
    /// `job`, `document` (an intake document) or `control` (a control document).
    public let kind: String
    /// `failed` (it ran and failed for good) or `dead` (it could not run).
    public let state: String?
    /// The stable error code (`http_404`, `invalid_url`, `malformed_document`…).
    public let error: String?
    /// The human-readable reason.
    public let message: String?
    /// A job's URL.
    public let url: String?
    /// A document as sent (up to 64 KiB).
    public let document: String?
    /// The batches the job counts in, sorted.
    public let batches: [String]
    public let destination: String?
    public let processing: String?
    public let priority: String?
    /// The job's own time limit in seconds, when it had one.
    public let timeout: Int?
    /// Claims that counted as attempts.
    public let attempts: Int?
    /// How often its lease expired.
    public let stalls: Int?
    /// The last worker that held it.
    public let worker: String?
    public let enqueuedAt: Int64?
    public let enqueuedAtUTC: String?
    public let claimedAt: Int64?
    public let claimedAtUTC: String?
    public let finishedAt: Int64?
    public let finishedAtUTC: String?
    public let deadLetteredAt: Int64
    public let deadLetteredAtUTC: String?

    public init(_ letter: DeadLetter) {
        let fields = letter.fields
        let text = { (name: String) in fields[name].flatMap { $0.isEmpty ? nil : URLCredentials.masked($0) } }
        let time = { (name: String) in fields[name].flatMap { Int64($0) } }
        id = letter.id
        // A job hash that expired leaves only the id to tell.
        kind = letter.isControlDocument ? "control"
            : letter.isDocument || (fields.isEmpty && letter.id.hasPrefix("doc-")) ? "document" : "job"
        state = text("state")
        error = text("error")
        message = text("message")
        url = text("url")
        document = text("document")
        batches = letter.batches
        destination = text("destination")
        processing = text("processing")
        priority = text("priority")
        timeout = fields["timeout"].flatMap { Int($0) }
        attempts = fields["attempts"].flatMap { Int($0) }
        stalls = fields["stalls"].flatMap { Int($0) }
        worker = text("worker")
        enqueuedAt = time("enqueuedAt")
        enqueuedAtUTC = enqueuedAt.flatMap(UTCTime.text)
        claimedAt = time("claimedAt")
        claimedAtUTC = claimedAt.flatMap(UTCTime.text)
        finishedAt = time("finishedAt")
        finishedAtUTC = finishedAt.flatMap(UTCTime.text)
        deadLetteredAt = letter.deadLetteredAt
        deadLetteredAtUTC = UTCTime.text(milliseconds: letter.deadLetteredAt)
    }

    /// The record as one line of JSON, keys sorted, slashes as they are.
    public func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
