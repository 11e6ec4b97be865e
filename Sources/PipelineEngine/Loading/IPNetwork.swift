/// A block of addresses in CIDR notation: `10.0.0.0/8`, `fd00::/8`, or a
/// single address.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the block.
    public let address: IPAddress
    /// How many leading bits are fixed.
    public let prefixLength: Int

    /// Parses `ADDRESS/BITS` (BITS in decimal digits), or a single
    /// `ADDRESS` (all bits fixed); `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let address = IPAddress(String(first)) else { return nil }
        let maximum = address.bytes.count * 8
        var length: Int? = maximum
        if let bits = parts.dropFirst().first {
            length = bits.allSatisfy { ("0"..."9").contains($0) } ? Int(bits) : nil
        }
        guard let length, (0...maximum).contains(length) else { return nil }
        self.address = address
        self.prefixLength = length
    }

    /// Whether `candidate` lies in the block.
    public func contains(_ candidate: IPAddress) -> Bool {
        guard candidate.bytes.count == address.bytes.count else { return false }
        var remaining = prefixLength
        for (a, b) in zip(address.bytes, candidate.bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            guard a & mask == b & mask else { return false }
            remaining -= bits
        }
        return true
    }

    /// `address/prefixLength`.
    public var description: String { "\(address)/\(prefixLength)" }
}
