import Foundation
import Scheduler

/// A list of image URLs read from a file or standard input, one per line.
///
/// Blank lines and lines starting with `#` are skipped. Every other line must
/// be an absolute `http` or `https` URL with a host; `invalidLines` lists the
/// others with their line numbers, so a command can refuse the whole input
/// and say exactly what is wrong.
struct URLList {
    /// The valid URLs, in input order.
    private(set) var urls: [String] = []
    /// The invalid lines: (line number, text).
    private(set) var invalidLines: [(number: Int, text: String)] = []

    /// Reads `path`, or standard input when `path` is `-`.
    init(path: String) throws {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw WarmerError.unreadableFile(path)
            }
            data = contents
        }
        self.init(bytes: [UInt8](data))
    }

    /// Parses `text`.
    init(text: String) {
        self.init(bytes: Array(text.utf8))
    }

    /// Parses UTF-8 lines. Works on bytes (a 100,000-line file in tens of
    /// milliseconds): lines split at LF, ASCII whitespace trimmed.
    init(bytes: [UInt8]) {
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

    /// Whether `text` is an absolute http(s) URL with a host.
    static func isValid(_ text: String) -> Bool {
        if let verdict = quickVerdict(text.utf8) { return verdict }
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty else { return false }
        return true
    }

    /// The verdict for the common case — `http(s)://host/path?query` in
    /// plain ASCII with no percent escapes, user info or IPv6 literal —
    /// without building `URLComponents` (a large list validates several
    /// times faster); `nil` for anything else, which `URLComponents` judges.
    private static func quickVerdict(_ utf8: String.UTF8View) -> Bool? {
        utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            let http = Array("http".utf8)
            guard bytes.count > 7, (0..<4).allSatisfy({ bytes[$0] | 0x20 == http[$0] }) else { return nil }
            var index = 4
            if bytes[index] | 0x20 == UInt8(ascii: "s") { index += 1 }
            guard index + 3 <= bytes.count, bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
                  bytes[index + 2] == UInt8(ascii: "/") else { return nil }
            index += 3
            var hostLength = 0
            var inHost = true, inPort = false
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                guard isPlain(byte) else { return nil }
                guard inHost else { continue }
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                    inHost = false
                } else if byte == UInt8(ascii: ":") {
                    inPort = true
                } else if !inPort {
                    hostLength += 1
                }
            }
            return hostLength > 0 ? true : nil
        } ?? nil
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

    /// Throws a readable error listing the invalid lines, if any.
    func validate() throws {
        guard !invalidLines.isEmpty else {
            if urls.isEmpty { throw WarmerError.noURLs }
            return
        }
        let shown = invalidLines.prefix(10).map { "  line \($0.number): \(URLCredentials.masked($0.text))" }.joined(separator: "\n")
        let more = invalidLines.count > 10 ? "\n  … and \(invalidLines.count - 10) more" : ""
        throw WarmerError.invalidURLs("\(invalidLines.count) line(s) are not http(s) URLs; nothing was done:\n\(shown)\(more)")
    }
}

/// Errors the CLI reports to the user.
enum WarmerError: Error, CustomStringConvertible {
    case unreadableFile(String)
    case noURLs
    case invalidURLs(String)
    case processingNeedsProcessedDestination
    case notCached(String)

    var description: String {
        switch self {
        case .unreadableFile(let path): "Cannot read '\(path)'"
        case .noURLs: "The input holds no URLs"
        case .invalidURLs(let details): details
        case .processingNeedsProcessedDestination: "Processing flags need --destination processed (the disk destination stores the original bytes)"
        case .notCached(let url): "Not in the cache: \(URLCredentials.masked(url))"
        }
    }
}
