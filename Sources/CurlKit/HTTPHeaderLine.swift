/// One line of an HTTP response head, parsed from raw bytes.
///
/// Runs for every header of every response on the curl thread, so it works
/// on bytes: no Foundation string processing.
enum HTTPHeaderLine: Equatable {
    /// `HTTP/1.1 200 OK`: the status code.
    case status(Int)
    /// `Name: value`, the name lowercased, the value without surrounding whitespace.
    case field(name: String, value: String)

    /// Parses a line; `nil` for the blank line ending the head and for malformed lines.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        let colon = UInt8(ascii: ":"), space = UInt8(ascii: " ")
        var end = bytes.count
        while end > 0, Self.isWhitespace(bytes[end - 1]) { end -= 1 }
        guard end > 0 else { return nil }

        if end > 5, bytes[0] == UInt8(ascii: "H"), bytes[1] == UInt8(ascii: "T"), bytes[2] == UInt8(ascii: "T"),
           bytes[3] == UInt8(ascii: "P"), bytes[4] == UInt8(ascii: "/") {
            // HTTP/x[.y] SP code SP reason
            guard let firstSpace = (0..<end).first(where: { bytes[$0] == space }) else { return nil }
            var code = 0, index = firstSpace + 1, digits = 0
            while index < end, digits < 3, (48...57).contains(bytes[index]) {
                code = code * 10 + Int(bytes[index] - 48)
                index += 1
                digits += 1
            }
            guard digits == 3 else { return nil }
            self = .status(code)
            return
        }

        guard let separator = (0..<end).first(where: { bytes[$0] == colon }), separator > 0 else { return nil }
        var valueStart = separator + 1
        while valueStart < end, Self.isWhitespace(bytes[valueStart]) { valueStart += 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<separator]).lazy.map(Self.lowercased), as: UTF8.self)
        let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<end]), as: UTF8.self)
        self = .field(name: name, value: value)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0d || byte == 0x0a
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (65...90).contains(byte) ? byte + 32 : byte
    }
}
