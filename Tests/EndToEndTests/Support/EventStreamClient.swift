import Foundation
import Synchronization
import TestSupport

/// One HTTP/1.1 request to `warmer serve` over a raw loopback socket, read
/// as it arrives by a thread of its own: the status line, the headers, then
/// the body (chunked or not), parsed as Server-Sent Events (`id:`, `event:`,
/// `data:`, comment lines) — a client as small as the WHATWG algorithm, so
/// that the test sees the bytes the server wrote and nothing else.
final class EventStreamClient: Sendable {
    /// One dispatched event.
    struct Event: Sendable, Equatable, CustomStringConvertible {
        let id: String?
        let type: String
        let data: String
        var description: String { "\(id ?? "-") \(type)" }
    }

    /// What has arrived so far.
    struct Snapshot: Sendable {
        var status: Int?
        /// Header names lowercased.
        var headers: [String: String] = [:]
        var events: [Event] = []
        /// Comment lines, without the colon.
        var comments: [String] = []
        /// The decoded body as text (for problems).
        var body = ""
        /// The server ended the response (or the connection closed).
        var ended = false
    }

    private struct Parser {
        var raw: [UInt8] = []
        var headersDone = false
        var chunked = false
        /// Bytes of the current chunk still to come; nil while a size line is awaited.
        var chunkLeft: Int?
        var line: [UInt8] = []
        var id: String?
        var type: String?
        var data: [String] = []
    }

    private struct Shared {
        var snapshot = Snapshot()
        var parser = Parser()
        /// The descriptor was closed (by the reader, at the end).
        var closed = false
    }

    private let descriptor: Int32
    private let shared = Mutex(Shared())

    /// Connects to 127.0.0.1:`port` and sends `GET path` with `headers`.
    init(port: Int, path: String, headers: [String: String] = [:]) throws {
        let descriptor = try RawHTTPConnection.connectedSocket(port: port)
        self.descriptor = descriptor
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else {
            _ = Glibc.close(descriptor)
            throw HarnessError("could not send the request: errno \(errno)")
        }
        let reader = Thread { [self] in readUntilEnd() }
        reader.name = "event-stream-client"
        reader.start()
    }

    deinit {
        close()
    }

    /// Everything so far.
    var snapshot: Snapshot { shared.withLock { $0.snapshot } }

    /// Disconnects (as a client that goes away does); the reader then ends.
    func close() {
        shared.withLock { shared in
            if !shared.closed { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Waits until `condition` holds for what has arrived; returns the
    /// snapshot it held for, or nil after `timeout`.
    @discardableResult
    func wait(timeout: Duration = .seconds(30), until condition: (Snapshot) -> Bool) async -> Snapshot? {
        await eventuallyValue(timeout: timeout, pollingEvery: .milliseconds(20)) { () -> Snapshot? in
            let snapshot = self.snapshot
            return condition(snapshot) ? snapshot : nil
        }
    }

    /// The response's status, once its header block has arrived.
    func status(timeout: Duration = .seconds(30)) async throws -> Int {
        guard let status = await wait(timeout: timeout, until: { $0.status != nil || $0.ended })?.status else {
            throw HarnessError("no response status within \(timeout): \(snapshot.body)")
        }
        return status
    }

    /// Waits for the end of the response.
    func end(timeout: Duration = .seconds(60)) async throws -> Snapshot {
        guard let snapshot = await wait(timeout: timeout, until: \.ended) else {
            throw HarnessError("the response did not end within \(timeout); events so far: \(snapshot.events)")
        }
        return snapshot
    }

    private func readUntilEnd() {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            let ended = shared.withLock { shared in
                Self.consume(buffer[0..<count], into: &shared.parser, &shared.snapshot)
                return shared.snapshot.ended
            }
            if ended { break }
        }
        shared.withLock { shared in
            shared.snapshot.ended = true
            shared.closed = true
            _ = Glibc.close(descriptor)
        }
    }

    private static func consume(_ bytes: ArraySlice<UInt8>, into parser: inout Parser, _ snapshot: inout Snapshot) {
        parser.raw += bytes
        if !parser.headersDone {
            guard let end = parser.raw.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            let head = String(decoding: parser.raw[..<end.lowerBound], as: UTF8.self)
            parser.raw.removeSubrange(..<end.upperBound)
            var lines = head.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            snapshot.status = statusLine.count > 1 ? Int(statusLine[1]) : nil
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                snapshot.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            parser.chunked = snapshot.headers["transfer-encoding"]?.lowercased().contains("chunked") == true
            parser.headersDone = true
        }
        guard parser.chunked else {
            let body = parser.raw
            parser.raw.removeAll()
            feed(body[...], into: &parser, &snapshot)
            if let length = snapshot.headers["content-length"].flatMap(Int.init), snapshot.body.utf8.count >= length {
                snapshot.ended = true
            }
            return
        }
        while true {
            if let left = parser.chunkLeft {
                if left == 0 {
                    // The CRLF after a chunk's data.
                    guard parser.raw.count >= 2 else { return }
                    parser.raw.removeFirst(2)
                    parser.chunkLeft = nil
                    continue
                }
                guard !parser.raw.isEmpty else { return }
                let take = min(left, parser.raw.count)
                let piece = parser.raw[..<take]
                parser.raw.removeFirst(take)
                parser.chunkLeft = left - take
                feed(piece, into: &parser, &snapshot)
            } else {
                guard let end = parser.raw.firstRange(of: Array("\r\n".utf8)) else { return }
                let sizeText = String(decoding: parser.raw[..<end.lowerBound], as: UTF8.self)
                parser.raw.removeSubrange(..<end.upperBound)
                let size = Int(sizeText.split(separator: ";").first.map(String.init) ?? "", radix: 16) ?? 0
                if size == 0 {
                    snapshot.ended = true
                    return
                }
                parser.chunkLeft = size
            }
        }
    }

    /// Feeds decoded body bytes to the event-stream parser.
    private static func feed(_ bytes: ArraySlice<UInt8>, into parser: inout Parser, _ snapshot: inout Snapshot) {
        snapshot.body += String(decoding: bytes, as: UTF8.self)
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                parser.line.append(byte)
                continue
            }
            var line = String(decoding: parser.line, as: UTF8.self)
            parser.line.removeAll()
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty {
                if !parser.data.isEmpty {
                    snapshot.events.append(Event(id: parser.id, type: parser.type ?? "message", data: parser.data.joined(separator: "\n")))
                }
                parser.type = nil
                parser.data = []
                continue
            }
            if line.hasPrefix(":") {
                snapshot.comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
                continue
            }
            let name = line.prefix { $0 != ":" }
            var value = line.dropFirst(name.count).dropFirst()
            if value.hasPrefix(" ") { value = value.dropFirst() }
            switch name {
            case "id": parser.id = String(value)
            case "event": parser.type = String(value)
            case "data": parser.data.append(String(value))
            default: break
            }
        }
    }
}
