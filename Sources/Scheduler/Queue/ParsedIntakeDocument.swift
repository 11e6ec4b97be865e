/// What a worker's parse of a large intake document found
/// (docs/wire-format.md, "Large documents"): what `IntakeParser.parse`
/// answers, with the rules and the texts of the expansion in Redis.
public enum ParsedIntakeDocument: Sendable, Equatable {
    /// A valid document: its URLs, in order, and its other fields as a JSON
    /// object (the document without `urls`, e.g. `{"v":1,"batch":"b","total":20000}`),
    /// which Redis checks again with the expansion's rules.
    case valid(urls: [String], fields: String)
    /// An invalid document: the dead letter's code (`malformed_document`,
    /// `invalid_document`) and message, and the batch it names when that
    /// id is usable (its `deadLettered` event then goes to that batch too).
    case invalid(code: String, message: String, batch: String?)
}
