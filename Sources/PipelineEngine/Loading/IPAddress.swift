/// An IPv4 or IPv6 address, as bytes in network order.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// An address from its bytes; `nil` unless there are 4 or 16.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses dotted IPv4 (`10.0.0.1`) or IPv6 (`fe80::1`, `::ffff:10.0.0.1`).
    public init?(_ text: String) {
        if let v4 = Self.parseIPv4(Substring(text)) {
            bytes = v4
        } else if let v6 = Self.parseIPv6(text) {
            bytes = v6
        } else {
            return nil
        }
    }

    /// Whether this is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address an IPv6 address carries (IPv4-mapped `::ffff:a.b.c.d`,
    /// IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`), if any.
    var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let head = bytes[0..<12]
        let mapped = head.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF])
        let compatible = head.allSatisfy { $0 == 0 } && bytes[12..<16].contains { $0 != 0 }
            && !(bytes[12..<15].allSatisfy { $0 == 0 } && bytes[15] <= 1) // not :: or ::1
        let nat64 = head.elementsEqual([0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0])
        guard mapped || compatible || nat64 else { return nil }
        return IPAddress(bytes: Array(bytes[12..<16]))
    }

    /// Dotted IPv4, or IPv6 as eight hex groups.
    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2)
            .map { index in
                let group: UInt16 = UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
                return String(group, radix: 16)
            }
            .joined(separator: ":")
    }

    private static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var result: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
            result.append(value)
        }
        return result
    }

    private static func parseIPv6(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        // A trailing dotted IPv4 part counts as two groups.
        var tail: [UInt8] = []
        if let lastColon = text.lastIndex(of: ":"), text[text.index(after: lastColon)...].contains(".") {
            guard let v4 = parseIPv4(text[text.index(after: lastColon)...]) else { return nil }
            tail = v4
            text = text[...lastColon]
            if text.hasSuffix(":"), !text.hasSuffix("::") { text = text.dropLast() }
        }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 {
            let all = head + tail
            return all.count == 16 ? all : nil
        }
        guard let rest = groups(halves[1]) else { return nil }
        let known = head.count + rest.count + tail.count
        guard known <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - known) + rest + tail
    }
}
