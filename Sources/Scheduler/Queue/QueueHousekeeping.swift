import Logging
import RedisKit

/// What the housekeeping of a claim, finish or lease renewal did that an
/// operator should hear of: jobs recovered from an expired lease (their
/// worker died or hung), jobs dead-lettered for stalling too often, and
/// intake documents dead-lettered. The scripts report it (`REPORT` in
/// `Queue/Lua/housekeeping.lua`); `log(to:)` gives each entry one line.
struct QueueHousekeeping {
    /// One recovered or dead-lettered job or document.
    struct Entry: Equatable {
        /// What happened to it.
        enum Kind: String {
            /// Its lease expired: back in the queue with a `stalled` event.
            case stalled
            /// Its lease expired more than `maximumStalls` times: dead-lettered as `stalled`.
            case dead
            /// Its lease expired while it was being cancelled: ended as cancelled.
            case cancelled
            /// An intake document that could not be used: dead-lettered.
            case document
            /// A large intake document leased to this client to parse (id:
            /// the lease token; detail: its size in bytes).
            case parse
        }

        let kind: Kind
        let id: String
        let url: String
        let batches: String
        /// Stalls so far (`stalled`, `dead`) or the error code (`document`).
        let detail: String
        /// The worker that held the lease, or the document's error message.
        let note: String
    }

    let entries: [Entry]

    /// Decodes a script's report; malformed entries are skipped.
    init(_ reply: RedisReply?) {
        entries = (reply?.array ?? []).compactMap { entry in
            let fields = entry.array.map { $0.string ?? "" }
            guard fields.count == 6, let kind = Entry.Kind(rawValue: fields[0]) else { return nil }
            return Entry(kind: kind, id: fields[1], url: fields[2], batches: fields[3], detail: fields[4], note: fields[5])
        }
    }

    /// The lease tokens of the large documents leased to this client to parse.
    var parsingLeases: [String] {
        entries.filter { $0.kind == .parse }.map(\.id)
    }

    /// One warning line per entry (a cancellation: info; a document to parse: debug).
    func log(to logger: Logger) {
        for entry in entries {
            var metadata: Logger.Metadata = ["job": .string(entry.id)]
            if !entry.batches.isEmpty { metadata["batch"] = .string(entry.batches) }
            if !entry.url.isEmpty { metadata["url"] = .string(URLCredentials.masked(entry.url)) }
            switch entry.kind {
            case .stalled:
                metadata["code"] = "stalled"
                metadata["stalls"] = .string(entry.detail)
                metadata["previous_worker"] = .string(entry.note)
                logger.warning("lease expired; job recovered and queued again", metadata: metadata)
            case .dead:
                metadata["code"] = "stalled"
                metadata["stalls"] = .string(entry.detail)
                metadata["previous_worker"] = .string(entry.note)
                logger.warning("lease expired too often; job dead-lettered", metadata: metadata)
            case .cancelled:
                metadata["previous_worker"] = .string(entry.note)
                logger.info("lease expired while cancelling; job cancelled", metadata: metadata)
            case .document:
                metadata["code"] = .string(entry.detail)
                metadata["message"] = .string(URLCredentials.masked(entry.note))
                logger.warning("intake document dead-lettered", metadata: metadata)
            case .parse:
                logger.debug("large intake document to parse", metadata: ["bytes": .string(entry.detail)])
            }
        }
    }
}
