/// A job's priority: five levels, served highest first, FIFO within a level.
public enum JobPriority: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case veryLow, low, normal, high, veryHigh

    /// The band in the queue's score: 0 for `veryHigh` … 4 for `veryLow` (lowest score is served first).
    public var band: Int {
        switch self {
        case .veryHigh: 0
        case .high: 1
        case .normal: 2
        case .low: 3
        case .veryLow: 4
        }
    }

    /// Orders from `veryLow` to `veryHigh`.
    public static func < (lhs: JobPriority, rhs: JobPriority) -> Bool { lhs.band > rhs.band }
}
