/// Why an intake document cannot be used: what Redis dead-letters it with.
public enum IntakeDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not JSON to Redis's Lua: cjson's message, e.g. `Expected value but found T_END at character 1`.
    case malformed(String)
    /// JSON, but not a valid intake document: which rule it breaks.
    case invalid(String)

    /// The dead letter's `error` code: `malformed_document` or `invalid_document`.
    public var code: String {
        switch self {
        case .malformed: "malformed_document"
        case .invalid: "invalid_document"
        }
    }

    /// The dead letter's `message`, e.g. `not JSON: Expected value but found
    /// T_END at character 1` or `unknown "priority"`.
    public var message: String {
        switch self {
        case .malformed(let reason): "not JSON: \(reason)"
        case .invalid(let problem): problem
        }
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
