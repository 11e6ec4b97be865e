import Foundation
import WarmerSupport

/// One lifecycle event, as stored in the queue's streams (wire format v1).
///
/// Events carry ids and small fields only, never image data. Field names are
/// the stream entry's field names; absent fields are omitted.
public struct JobEvent: Sendable, Hashable {
    /// The event's kind.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A worker claimed the job and started it (published by the claim).
        case started
        /// Bytes received so far (long downloads only, throttled).
        case progress
        /// A download attempt failed with a transient error and will be
        /// tried again: `download_attempt`, `error`, `message`, `retry_in_ms`.
        case retrying
        /// The job failed with a transient error and runs again after
        /// `retry_in_ms` (the queue's retry backoff): `error`, `message`.
        case delayed
        /// The job's lease expired (its worker died or hung) and it went back
        /// to the queue; `stalls` counts how often.
        case stalled
        /// The job finished; `source` tells where the data came from.
        case completed
        /// The job failed; `error` and `message` tell why.
        case failed
        /// The job was cancelled.
        case cancelled
        /// The job cannot run and was moved to the dead-letter set.
        case deadLettered
        /// Every job of the batch has ended.
        case batchCompleted
        /// A control document was applied (queue stream only): `op`, the
        /// sender's `id`, and its counts (docs/control-documents.md).
        case controlApplied
    }

    /// Wire format version.
    public static let version = "1"

    /// The stream entry id (`<ms>-<seq>`), set for events read from Redis.
    public var streamID: String?
    /// The event's kind.
    public var kind: Kind
    /// All fields, including `type`, `v`, `ts` (ms since the epoch).
    public var fields: [String: String]

    /// Creates an event for a job in one of its batches (the first when `nil`).
    public init(_ kind: Kind, job: Job, batch: String? = nil, worker: String, extra: [String: String] = [:]) {
        self.kind = kind
        var fields = [
            "v": Self.version, "type": kind.rawValue, "job": job.id, "batch": batch ?? job.batchID, "url": job.url,
            "ts": String(Int64(Date().timeIntervalSince1970 * 1000)), "worker": worker, "attempt": String(job.attempt),
        ]
        fields.merge(extra) { _, new in new }
        self.fields = fields
    }

    /// Decodes a stream entry; `nil` when it has no known `type`.
    public init?(streamID: String, fields: [String: String]) {
        guard let kind = fields["type"].flatMap(Kind.init(rawValue:)) else { return nil }
        self.streamID = streamID
        self.kind = kind
        self.fields = fields
    }

    /// The job id; absent for batch events, and for a URL counted as
    /// completed from `recent` (a batch's `freshFor`: no job was made).
    public var jobID: String? { fields["job"] }
    /// The batch id.
    public var batchID: String? { fields["batch"] }
    /// The job's URL.
    public var url: String? { fields["url"] }
    /// Milliseconds since the epoch when the event was published.
    public var timestamp: Int64? { fields["ts"].flatMap { Int64($0) } }
    /// Bytes transferred or stored.
    public var bytes: Int64? { fields["bytes"].flatMap { Int64($0) } }

    /// The fields as XADD arguments, in a stable order.
    var streamArguments: [String] {
        fields.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
    }

    /// Fields whose values are integers in JSON.
    static let numericFields: Set<String> = [
        "ts", "bytes", "total", "completed", "failed", "cancelled", "dead", "attempt", "download_attempt", "retry_in_ms",
        "stalls",
    ]

    /// One JSON object, keys sorted, counts and times as numbers; `id` is the stream id.
    public var jsonLine: String {
        var object = fields
        if let streamID { object["id"] = streamID }
        var line = "{"
        for (index, key) in object.keys.sorted().enumerated() {
            let value = object[key] ?? ""
            if index > 0 { line += "," }
            line += JSONText.quoted(key) + ":"
            line += Self.numericFields.contains(key) && Int64(value) != nil ? value : JSONText.quoted(value)
        }
        return line + "}"
    }
}
