import Foundation
import Synchronization
import TestSupport

/// An HTTP origin on a free loopback port that holds every request until
/// the test releases it: the test decides when each download ends, so the
/// order of a worker's claims can be followed one job end at a time, with no
/// clock. Each request is answered `200` with `body` (`Connection: close`).
final class GatedOrigin: Sendable {
    /// A request being held: its arrival number (from 0) and its path.
    struct Request: Sendable, Hashable {
        let id: Int
        let path: String
    }

    private struct State {
        var nextID = 0
        var held: [(request: Request, socket: Int32)] = []
        var gatesOpen = false
        var closed = false
    }

    let port: Int
    private let listener: Int32
    private let body: Data
    private let state = Mutex(State())

    /// Listens on 127.0.0.1 and starts accepting (on a thread of its own).
    init(body: Data) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw HarnessError("socket() failed") }
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 128) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard listening else {
            _ = Glibc.close(listener)
            throw HarnessError("could not listen on a loopback port: errno \(errno)")
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.body = body
        Thread { [self] in acceptLoop() }.start()
    }

    /// The URL of `path` (starting with `/`) on this origin.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The requests held, in arrival order.
    var held: [Request] { state.withLock { $0.held.map(\.request) } }

    /// Answers the held requests of `ids`.
    func release(_ ids: Set<Int>) {
        let sockets = state.withLock { state in
            let released = state.held.filter { ids.contains($0.request.id) }
            state.held.removeAll { ids.contains($0.request.id) }
            return released.map(\.socket)
        }
        for socket in sockets { respond(on: socket) }
    }

    /// Answers every held request, and every later one at once.
    func openGates() {
        let sockets = state.withLock { state in
            state.gatesOpen = true
            defer { state.held.removeAll() }
            return state.held.map(\.socket)
        }
        for socket in sockets { respond(on: socket) }
    }

    /// Stops listening and drops the held requests' connections.
    func close() {
        let sockets = state.withLock { state in
            state.closed = true
            defer { state.held.removeAll() }
            return state.held.map(\.socket)
        }
        shutdown(listener, Int32(SHUT_RDWR))
        _ = Glibc.close(listener)
        for socket in sockets { _ = Glibc.close(socket) }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if state.withLock({ $0.closed }) { return }
                continue
            }
            Thread { [self] in serve(connection) }.start()
        }
    }

    /// Reads the request head, then holds the request (or answers it when the gates are open).
    private func serve(_ connection: Int32) {
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !head.ends(with: Array("\r\n\r\n".utf8)), head.count < 65_536 {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else {
                _ = Glibc.close(connection)
                return
            }
            head += buffer[0..<count]
        }
        let line = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = line.split(separator: " ")
        let path = parts.count > 1 ? String(parts[1]) : ""
        let answerNow = state.withLock { state -> Bool in
            if state.gatesOpen || state.closed { return true }
            state.held.append((Request(id: state.nextID, path: path), connection))
            state.nextID += 1
            return false
        }
        if answerNow { respond(on: connection) }
    }

    private func respond(on connection: Int32) {
        let headers = "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let bytes = [UInt8](headers.utf8) + [UInt8](body)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { break }
            sent += count
        }
        _ = Glibc.close(connection)
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
