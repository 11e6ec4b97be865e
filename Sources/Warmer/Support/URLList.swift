import Foundation
import Scheduler
import WarmerInput

/// Reading a URL list from a file or standard input, and the CLI's error
/// for invalid lines; the parsing itself is `WarmerInput.URLList`.
extension URLList {
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

    /// `text` safe to print on a terminal: control characters and invalid
    /// UTF-8 (a binary file given by mistake) escaped as `\u{1B}`, and
    /// at most 200 characters.
    static func printable(_ text: String) -> String {
        var shown = text.unicodeScalars.prefix(200).map { scalar -> String in
            scalar.properties.generalCategory == .control || scalar == "\u{FFFD}"
                ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : String(scalar)
        }.joined()
        if text.unicodeScalars.count > 200 { shown += "…" }
        return shown
    }

    /// Throws a readable error listing the invalid lines, if any.
    func validate() throws {
        guard !invalidLines.isEmpty else {
            if urls.isEmpty { throw WarmerError.noURLs }
            return
        }
        let shown = invalidLines.prefix(10).map { "  line \($0.number): \(Self.printable(URLCredentials.masked($0.text)))" }
            .joined(separator: "\n")
        let more = invalidLines.count > 10 ? "\n  … and \(invalidLines.count - 10) more" : ""
        throw WarmerError.invalidURLs("\(invalidLines.count) line(s) are not http(s) URLs; nothing was done:\n\(shown)\(more)")
    }
}
