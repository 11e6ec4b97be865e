/// A processing spec that cannot be parsed, or that asks for more than the
/// `ProcessingLimits` allow. A worker dead-letters such a job with
/// `invalid_processing` and this description as the message.
public enum ProcessingSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason, e.g. `quality must be 1-100: '0'`.
    case invalid(String)

    /// `Invalid processing spec: ` and the reason.
    public var description: String {
        switch self {
        case .invalid(let reason): "Invalid processing spec: \(reason)"
        }
    }
}
