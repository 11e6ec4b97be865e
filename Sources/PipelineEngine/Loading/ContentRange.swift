import Foundation

/// A `Content-Range: bytes START-END/TOTAL` header (TOTAL may be `*`).
struct ContentRange: Equatable {
    /// The first byte's offset.
    let start: Int64
    /// The last byte's offset.
    let end: Int64
    /// The length of the whole body, when the origin knows it.
    let total: Int64?

    init?(_ value: String?) {
        guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start <= end else { return nil }
        self.start = start
        self.end = end
        self.total = parts[1] == "*" ? nil : Int64(parts[1])
    }
}
