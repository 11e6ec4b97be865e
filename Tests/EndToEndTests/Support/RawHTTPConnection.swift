import Foundation
import TestSupport

/// A plain TCP connection to a loopback port, for requests URLSession
/// cannot make: a header block of any size, a body streamed without
/// `Content-Length`, a request sent a byte at a time. Blocking calls: use
/// it inside `offCooperativePool`.
final class RawHTTPConnection: Sendable {
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`; reads wait at most `timeout` seconds.
    init(port: Int, timeout: Int = 30) throws {
        let descriptor = try RawHTTPConnection.connectedSocket(port: port)
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        self.descriptor = descriptor
    }

    /// A TCP socket connected to 127.0.0.1:`port` (also the event-stream
    /// test client's, `EventStreamClient`).
    static func connectedSocket(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            _ = Glibc.close(descriptor)
            throw HarnessError("could not connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return descriptor
    }

    /// Sends `text`; false once the server closed the connection (no SIGPIPE).
    @discardableResult
    func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    /// Sends `bytes`; false once the server closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Whether the server has sent something not read yet (without waiting).
    var hasAnswer: Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// Sends `chunk` `count` times, stopping as soon as the server answers
    /// (or closes): a server refusing a body answers before it has all of it.
    func sendUntilAnswered(_ chunk: String, count: Int) {
        for _ in 0..<count {
            guard !hasAnswer, send(chunk) else { return }
        }
    }

    /// The first response: up to the end of its `Content-Length` body, or
    /// everything until the server closes the connection or the read
    /// timeout passes. Empty when the server closed without answering.
    func receiveResponse() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !Self.isComplete(received) {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Whether `bytes` hold a whole response with a `Content-Length`.
    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) else { return false }
        return text.utf8.count - text[..<end.upperBound].utf8.count >= length
    }

    /// Reads until the server closes the connection: true when it did
    /// (end of stream or reset), false when the read timeout passed first
    /// (the server kept the connection open). Whatever arrives is dropped.
    func waitForClose() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            if count == 0 { return true }
            return errno != EAGAIN && errno != EWOULDBLOCK
        }
    }

    /// The status code of the first response in `text`, if any.
    static func status(of text: String) -> Int? {
        guard text.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}
