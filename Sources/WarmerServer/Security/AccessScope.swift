/// What a bearer token lets its caller do (docs/http-api.md, "Security").
enum AccessScope: Int, Sendable, Comparable {
    /// No token, or one the server does not know.
    case none
    /// A read token: every GET.
    case read
    /// An admin token: reads, and every change (enqueue, cancel,
    /// reprioritise, pause, resume, dead-letter retry and purge).
    case admin

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
