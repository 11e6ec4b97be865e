import RedisKit

/// What one step of the queue's control documents did
/// (`JobQueue.applyControlDocumentStep`; docs/control-documents.md).
public enum ControlDocumentStep: Sendable, Equatable {
    /// No control document waits.
    case idle
    /// A document has more steps (a large batch's cancel or priority change,
    /// or a retry or purge of every dead letter): call again.
    case inProgress(operation: String, id: String?)
    /// A document's last step: the fields of the `controlApplied` event it published.
    case applied(fields: [String: String])
    /// A document that did not parse, validate or apply was dead-lettered as
    /// `deadLetterID` with its error code and reason (and the sender's `id`
    /// and `op`, when valid).
    case deadLettered(deadLetterID: String, error: String, message: String, id: String?, operation: String?)

    /// Decodes the control document script's reply.
    init(reply: RedisReply) throws(SchedulerError) {
        let parts = reply.array
        let strings = parts.map { $0.string ?? "" }
        let nonEmpty = { (index: Int) -> String? in strings.count > index && !strings[index].isEmpty ? strings[index] : nil }
        switch strings.first {
        case "idle":
            self = .idle
        case "inProgress" where strings.count == 3:
            self = .inProgress(operation: strings[1], id: nonEmpty(2))
        case "applied" where parts.count == 2:
            self = .applied(fields: parts[1].fieldDictionary)
        case "deadLettered" where strings.count == 6:
            self = .deadLettered(deadLetterID: strings[1], error: strings[2], message: strings[3], id: nonEmpty(4),
                                 operation: nonEmpty(5))
        default:
            throw .redis(.unexpectedReply("control document step: \(reply)"))
        }
    }
}
