/// A raw HTTP/1.1 answer taken apart: its head, and its body with the
/// chunked transfer coding removed (as far as it arrived).
struct ChunkedBody {
    /// The status line and headers.
    let head: String
    /// The body's bytes, as text.
    let body: String

    init(_ answer: String) {
        let bytes = Array(answer.utf8)
        let separator = Array("\r\n\r\n".utf8)
        let headEnd = (0..<max(0, bytes.count - 3)).first { Array(bytes[$0..<$0 + 4]) == separator } ?? bytes.count
        head = String(decoding: bytes[..<headEnd], as: UTF8.self)
        let rest = Array(bytes[min(bytes.count, headEnd + 4)...])
        guard head.lowercased().contains("transfer-encoding: chunked") else {
            body = String(decoding: rest, as: UTF8.self)
            return
        }
        var decoded: [UInt8] = []
        var index = 0
        // Each chunk: its size in hex, CRLF, the bytes, CRLF; a size of 0 ends the body.
        while let lineEnd = (index..<max(index, rest.count - 1)).first(where: { rest[$0] == 13 && rest[$0 + 1] == 10 }),
              let size = Int(String(decoding: rest[index..<lineEnd], as: UTF8.self), radix: 16), size > 0,
              lineEnd + 2 + size <= rest.count {
            decoded += rest[(lineEnd + 2)..<(lineEnd + 2 + size)]
            index = lineEnd + 2 + size + 2
        }
        body = String(decoding: decoded, as: UTF8.self)
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
