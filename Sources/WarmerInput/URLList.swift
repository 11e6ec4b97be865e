import Foundation

/// A list of image URLs, one per line, as `warmer enqueue` and `warmer warm`
/// read them; and the test every job's URL passes before a worker fetches it.
///
/// Blank lines and lines starting with `#` are skipped. Every other line must
/// be an absolute `http` or `https` URL with a host; `invalidLines` lists the
/// others with their line numbers, so a command can refuse the whole input
/// and say exactly what is wrong.
public struct URLList: Sendable {
    /// The valid URLs, in input order.
    public private(set) var urls: [String] = []
    /// The invalid lines: (line number, text).
    public private(set) var invalidLines: [(number: Int, text: String)] = []

    /// Parses `text`.
    public init(text: String) {
        self.init(bytes: Array(text.utf8))
    }

    /// Parses UTF-8 lines. Works on bytes (a 100,000-line file in tens of
    /// milliseconds): lines split at LF, ASCII whitespace trimmed. Invalid
    /// UTF-8 is read as U+FFFD.
    public init(bytes: [UInt8]) {
        var lineNumber = 0
        var start = bytes.startIndex
        while start < bytes.endIndex {
            lineNumber += 1
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.endIndex
            var first = start, last = end
            while first < last, Self.isSpace(bytes[first]) { first += 1 }
            while last > first, Self.isSpace(bytes[last - 1]) { last -= 1 }
            start = end + 1
            guard first < last, bytes[first] != UInt8(ascii: "#") else { continue }
            let line = String(decoding: bytes[first..<last], as: UTF8.self)
            if Self.isValid(line) {
                urls.append(line)
            } else {
                invalidLines.append((lineNumber, line))
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    /// Whether `text` is an absolute http(s) URL with a host: `quickVerdict`
    /// when it has one, else `fullVerdict`.
    public static func isValid(_ text: String) -> Bool {
        quickVerdict(text) ?? fullVerdict(text)
    }

    /// The verdict of `URLComponents`: the scheme is `http` or `https` (any
    /// case), the host is not empty, a port is within 1–65535, and the text
    /// holds no whitespace or control character (which `URLComponents`
    /// would quietly escape, but which libcurl refuses as a malformed URL,
    /// and which no URL in a list means).
    public static func fullVerdict(_ text: String) -> Bool {
        guard !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }),
              let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty else { return false }
        if let port = components.port, !(1...65_535).contains(port) { return false }
        return true
    }

    /// The verdict for the common case — `http(s)://host[:port]/path?query`
    /// in plain ASCII with no percent escapes, user info, IPv6 literal or
    /// IDNA label (`xn--`), and a port of digits only — without building
    /// `URLComponents` (a large list validates several times faster); `nil`
    /// for anything else, which `fullVerdict` judges. Where it gives a
    /// verdict, it is `fullVerdict`'s (the url-list fuzzer checks).
    public static func quickVerdict(_ text: String) -> Bool? {
        text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            let http = Array("http".utf8)
            guard bytes.count > 7, (0..<4).allSatisfy({ bytes[$0] | 0x20 == http[$0] }) else { return nil }
            var index = 4
            if bytes[index] | 0x20 == UInt8(ascii: "s") { index += 1 }
            guard index + 3 <= bytes.count, bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
                  bytes[index + 2] == UInt8(ascii: "/") else { return nil }
            index += 3
            let hostStart = index
            var hostEnd: Int?, portStart: Int?
            while index < bytes.count {
                let byte = bytes[index]
                guard isPlain(byte) else { return nil }
                if hostEnd == nil {
                    if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                        hostEnd = index
                    } else if byte == UInt8(ascii: ":"), portStart == nil {
                        portStart = index + 1
                    } else if portStart != nil, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                        return nil // a port that is not a number: URLComponents refuses it
                    }
                }
                index += 1
            }
            let authorityEnd = hostEnd ?? bytes.count
            let host = bytes[hostStart..<(portStart.map { $0 - 1 } ?? authorityEnd)]
            guard !host.isEmpty, !containsIDNALabel(host) else { return nil }
            if let portStart {
                // Up to five digits: 1–65535 is a port, anything else is not
                // (longer runs, leading zeros and all, are left to `fullVerdict`).
                let digits = bytes[portStart..<authorityEnd]
                guard (1...5).contains(digits.count) else { return nil }
                let port = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                return (1...65_535).contains(port)
            }
            return true
        } ?? nil
    }

    /// Whether `host` has a label starting with `xn--` (any case): IDNA, which
    /// `URLComponents` decodes and may refuse.
    private static func containsIDNALabel(_ host: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var labelStart = true
        var index = host.startIndex
        while index < host.endIndex {
            if labelStart, host.endIndex - index >= 4, host[index] | 0x20 == UInt8(ascii: "x"),
               host[index + 1] | 0x20 == UInt8(ascii: "n"), host[index + 2] == UInt8(ascii: "-"),
               host[index + 3] == UInt8(ascii: "-") {
                return true
            }
            labelStart = host[index] == UInt8(ascii: ".")
            index += 1
        }
        return false
    }

    /// Letters, digits and the URL punctuation that needs no escaping, except
    /// `%` (escapes), `@` (user info) and `[ ]` (IPv6 literals).
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "/"),
             UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="):
            true
        default:
            false
        }
    }
}
