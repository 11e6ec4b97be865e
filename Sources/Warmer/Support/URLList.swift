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
