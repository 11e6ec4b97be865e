/// A raw HTTP/1.1 answer taken apart: its head, and its body with the
/// chunked transfer coding removed (as far as it arrived).
struct ChunkedBody {
    /// The status line and headers.
    let head: String
    /// The body's bytes, as text.
    let body: String

    init(_ answer: String) {
        let parts = answer.components(separatedBy: "\r\n\r\n")
        head = parts.first ?? ""
        var rest = Substring(parts.dropFirst().joined(separator: "\r\n\r\n"))
        guard head.lowercased().contains("transfer-encoding: chunked") else {
            body = String(rest)
            return
        }
        var decoded = ""
        while let lineEnd = rest.range(of: "\r\n"), let size = Int(rest[..<lineEnd.lowerBound], radix: 16), size > 0 {
            let start = lineEnd.upperBound
            let utf8 = rest[start...].utf8
            guard utf8.count >= size, let end = utf8.index(utf8.startIndex, offsetBy: size, limitedBy: utf8.endIndex) else { break }
            decoded += String(Substring(utf8[utf8.startIndex..<end])) ?? ""
            rest = rest[end...].dropFirst(2)
        }
        body = decoded
    }

    /// The Server-Sent Events of the body: each frame's fields (`id`, `event`, `data`…).
    var events: [[String: String]] {
        body.components(separatedBy: "\n\n").compactMap { frame in
            var fields: [String: String] = [:]
            for line in frame.split(separator: "\n") where !line.hasPrefix(":") {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                fields[String(parts[0])] = String(parts[1].dropFirst(parts[1].hasPrefix(" ") ? 1 : 0))
            }
            return fields["event"] == nil ? nil : fields
        }
    }
}
