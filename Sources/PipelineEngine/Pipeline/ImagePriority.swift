/// A request's priority: five levels, as in Nuke.
public enum ImagePriority: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    case veryLow, low, normal, high, veryHigh

    /// Orders from `veryLow` to `veryHigh`.
    public static func < (lhs: ImagePriority, rhs: ImagePriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
