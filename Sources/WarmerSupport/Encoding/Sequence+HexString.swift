/// Lowercase hexadecimal text of bytes: digests as Redis (script SHA1s) and
/// the disk cache (file names) spell them.
extension Sequence<UInt8> {
    /// The bytes as lowercase hex, two digits each: `[0x0f, 0xa0]` is `"0fa0"`.
    public var hexString: String {
        var text = [UInt8]()
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(Self.hexDigit(byte >> 4))
            text.append(Self.hexDigit(byte & 0x0f))
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The ASCII code of the lowercase hex digit for `nibble` (0…15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
