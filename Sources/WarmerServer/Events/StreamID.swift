/// A Redis stream entry id, `<ms>-<seq>`, ordered as Redis orders them.
struct StreamID: Sendable, Hashable, Comparable, CustomStringConvertible {
    let milliseconds: UInt64
    let sequence: UInt64

    /// Before every entry: `0-0`.
    static let zero = StreamID(milliseconds: 0, sequence: 0)

    init(milliseconds: UInt64, sequence: UInt64) {
        self.milliseconds = milliseconds
        self.sequence = sequence
    }

    /// Parses `<ms>-<seq>` (or `<ms>`, as Redis reads it); `nil` for anything else.
    init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
              let milliseconds = UInt64(parts[0]) else { return nil }
        let sequence = parts.count == 2 ? UInt64(parts[1]) : 0
        guard let sequence else { return nil }
        self.init(milliseconds: milliseconds, sequence: sequence)
    }

    var description: String { "\(milliseconds)-\(sequence)" }

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.milliseconds, lhs.sequence) < (rhs.milliseconds, rhs.sequence)
    }
}
