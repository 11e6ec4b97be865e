import Foundation
import Testing
import TestSupport

/// Issue 23, V3: a client that declares a huge body and trickles it in
/// cannot hold a connection (and its file descriptor) for long. A request's
/// headers and body must arrive within `request-timeout`, and an answer
/// given before the body was read (401, 403, 413) closes the connection
/// instead of reading the rest. Raw sockets against a real `warmer serve`.
@Suite("Serve request deadline")
struct ServeRequestDeadlineTests {
    /// The head of a POST of a batch declaring a body of `length` bytes.
    private func hugePost(_ queue: QueueProbe, token: String?, length: Int = 100_000_000) -> String {
        "POST /v1/queues/\(queue.name)/batches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "Content-Length: \(length)\r\n\r\n"
    }

    @Test func aBodyTricklingInPastTheRequestTimeoutIsAnswered408AndClosed() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, arguments: ["--request-timeout", "2"]) { serve in
            // Given an admin's POST declaring 8,000,000 bytes (within max-body), its body sent a byte every 0.2 s
            let head = hugePost(queue, token: ServeProcess.adminToken, length: 8_000_000)
            let (answer, closed, sent) = try await offCooperativePool { [port = serve.port] in
                let connection = try RawHTTPConnection(port: port, timeout: 60)
                defer { connection.close() }
                connection.send(head)
                // (The bound only ends a hang: 1,500 bytes would take 5 minutes.)
                var sent = 0
                while sent < 1500, !connection.hasAnswer, connection.send("{") {
                    sent += 1
                    Thread.sleep(forTimeInterval: 0.2)
                }
                let answer = connection.receiveResponse()
                return (answer, connection.waitForClose(), sent)
            }
            // Then the server answered 408 once its deadline passed, and closed the connection
            #expect(RawHTTPConnection.status(of: answer) == 408, "after \(sent) bytes: \(answer)")
            #expect(answer.contains(#""code":"request_timeout""#) && answer.lowercased().contains("connection: close"), "\(answer)")
            #expect(closed, "the connection stayed open after the 408")
            #expect(try await queue.queue.queuedCount() == 0)
        }
    }

    @Test func aClientThatNeverFinishesItsHeadersIsDisconnected() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, arguments: ["--request-timeout", "2"]) { serve in
            let closed = try await offCooperativePool { [port = serve.port] in
                let connection = try RawHTTPConnection(port: port, timeout: 60)
                defer { connection.close() }
                connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                var lines = 0
                while lines < 1500, !connection.hasAnswer, connection.send("X-Slow-\(lines): 1\r\n") {
                    lines += 1
                    Thread.sleep(forTimeInterval: 0.2)
                }
                return connection.waitForClose()
            }
            #expect(closed, "a request whose headers never end kept its connection")
        }
    }

    /// 401 (no token), 403 (a read token) and 413 (over max-body): each
    /// answered at once, then the connection closes with the body unread.
    /// The request timeout is long, so a server that read the rest of the
    /// body would keep the connection past the client's 20 s read timeout.
    @Test(arguments: [("none", 401), ("read", 403), ("admin", 413)])
    func anAnswerGivenBeforeTheBodyClosesTheConnectionWithoutReadingTheBody(token: String, status: Int) async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, arguments: ["--request-timeout", "600", "--max-body", "1"]) { serve in
            let bearer = ["none": nil, "read": ServeProcess.readToken, "admin": ServeProcess.adminToken][token]!
            let head = hugePost(queue, token: bearer)
            let (answer, closed) = try await offCooperativePool { [port = serve.port] in
                let connection = try RawHTTPConnection(port: port, timeout: 20)
                defer { connection.close() }
                connection.send(head + "{\"v\":1,")
                let answer = connection.receiveResponse()
                // The client goes on sending, slowly, as the attack would.
                connection.send("\"urls\":[")
                return (answer, connection.waitForClose())
            }
            #expect(RawHTTPConnection.status(of: answer) == status, "\(answer)")
            #expect(answer.lowercased().contains("connection: close"), "\(answer)")
            #expect(closed, "the server kept reading a body it had refused (\(status))")
        }
    }

    @Test func keepAliveRequestsWithinTheDeadlineAreServedOnOneConnection() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, arguments: ["--request-timeout", "30"]) { serve in
            let request = "GET /v1/queues/\(queue.name) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServeProcess.readToken)\r\n\r\n"
            let answers = try await offCooperativePool { [port = serve.port] in
                let connection = try RawHTTPConnection(port: port)
                defer { connection.close() }
                return (0..<5).map { _ in
                    connection.send(request)
                    return connection.receiveResponse()
                }
            }
            #expect(answers.allSatisfy { RawHTTPConnection.status(of: $0) == 200 && !$0.lowercased().contains("connection: close") },
                    "\(answers)")
        }
    }
}
