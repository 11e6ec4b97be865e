import Foundation
import Testing
import TestSupport

/// Issue 23, V4: without tokens `warmer serve` listens on loopback only,
/// and a browser on this machine must not let a web site use it. A page of
/// another origin cannot change anything (pause, enqueue, retry), even with
/// the "simple" requests a browser sends without asking; a site whose name
/// was re-pointed at 127.0.0.1 (DNS rebinding) cannot read either. The
/// server's own dashboard, and command-line clients, still can. Raw
/// sockets, so that `Host` and `Origin` are exactly what a browser sends.
@Suite("Serve loopback guard")
struct ServeLoopbackGuardTests {
    /// Sends one request on a connection of its own; the raw answer.
    private func send(
        _ serve: ServeProcess, _ method: String, _ path: String, host: String? = nil, headers: [String: String] = [:],
        body: String? = nil
    ) async throws -> String {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(serve.port)")\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        let request = head + "Content-Length: \(body?.utf8.count ?? 0)\r\n\r\n" + (body ?? "")
        return try await offCooperativePool { [port = serve.port] in
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            connection.send(request)
            return connection.receiveResponse()
        }
    }

    private static let evil = "http://evil.example"
    private static let document = #"{"v":1,"urls":["https://a.example/x.jpg"]}"#

    @Test func aForeignPageCannotPauseEnqueueOrRetry() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, tokens: false) { serve in
            let base = "/v1/queues/\(queue.name)"
            // Given a page of evil.example sending the simple requests a browser sends without a preflight
            let simple = ["Origin": Self.evil, "Content-Type": "text/plain"]
            let pause = try await send(serve, "POST", base + "/pause", headers: simple)
            let batch = try await send(serve, "POST", base + "/batches", headers: simple, body: Self.document)
            let retry = try await send(serve, "POST", base + "/dead", headers: simple, body: #"{"all":true}"#)
            let json = try await send(serve, "POST", base + "/batches", headers: ["Origin": Self.evil, "Content-Type": "application/json"],
                                      body: Self.document)
            let opaque = try await send(serve, "POST", base + "/pause", headers: ["Origin": "null"])
            // Then every one is refused, and nothing changed
            for answer in [pause, batch, retry, json, opaque] {
                #expect(RawHTTPConnection.status(of: answer) == 403 && answer.contains(#""code":"forbidden_origin""#), "\(answer)")
            }
            #expect(try await queue.queue.statistics().isPaused == false)
            #expect(try await queue.queue.queuedCount() == 0)
        }
    }

    @Test func aBodyThatIsNotDeclaredJSONIsRefusedEvenWithoutAnOrigin() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, tokens: false) { serve in
            let answer = try await send(serve, "POST", "/v1/queues/\(queue.name)/batches", headers: ["Content-Type": "text/plain"],
                                        body: Self.document)
            #expect(RawHTTPConnection.status(of: answer) == 415 && answer.contains(#""code":"unsupported_media_type""#), "\(answer)")
            #expect(try await queue.queue.queuedCount() == 0)
        }
    }

    @Test func aRebindingSiteCannotReadOrChange() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, tokens: false) { serve in
            // Given requests naming evil.example as their host (its DNS now answers 127.0.0.1)
            let host = "evil.example:\(serve.port)"
            let read = try await send(serve, "GET", "/v1/queues/\(queue.name)", host: host)
            let stream = try await send(serve, "GET", "/v1/queues/\(queue.name)/events", host: host)
            let pause = try await send(serve, "POST", "/v1/queues/\(queue.name)/pause", host: host,
                                       headers: ["Origin": "http://" + host])
            // Then none is served
            for answer in [read, stream, pause] {
                #expect(RawHTTPConnection.status(of: answer) == 403 && answer.contains(#""code":"forbidden_host""#), "\(answer.prefix(300))")
            }
            #expect(try await queue.queue.statistics().isPaused == false)
        }
    }

    @Test func theServersOwnPagesAndCommandLineClientsAreServed() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, tokens: false) { serve in
            let base = "/v1/queues/\(queue.name)"
            let json = ["Content-Type": "application/json"]
            // The dashboard's own origin, under each loopback name
            for host in ["127.0.0.1:\(serve.port)", "localhost:\(serve.port)", "[::1]:\(serve.port)"] {
                let read = try await send(serve, "GET", base, host: host)
                #expect(RawHTTPConnection.status(of: read) == 200, "\(host): \(read)")
            }
            let own = try await send(serve, "POST", base + "/batches", headers: json.merging(["Origin": "http://127.0.0.1:\(serve.port)"]) { $1 },
                                     body: Self.document)
            #expect(RawHTTPConnection.status(of: own) == 201, "\(own)")
            // A command-line client: no Origin
            let cli = try await send(serve, "POST", base + "/pause", headers: [:])
            #expect(RawHTTPConnection.status(of: cli) == 204, "\(cli)")
            #expect(try await queue.queue.statistics().isPaused == true)
            // A cross-origin GET is served (the browser keeps the answer from the page: no CORS header)
            let foreignRead = try await send(serve, "GET", base, headers: ["Origin": Self.evil])
            #expect(RawHTTPConnection.status(of: foreignRead) == 200 && !foreignRead.lowercased().contains("access-control-allow-origin"),
                    "\(foreignRead)")
        }
    }

    @Test func aConfiguredCORSOriginMayChange() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, tokens: false, arguments: ["--cors-origin", "https://ops.example.com"]) { serve in
            let answer = try await send(serve, "POST", "/v1/queues/\(queue.name)/pause", headers: ["Origin": "https://ops.example.com"])
            #expect(RawHTTPConnection.status(of: answer) == 204, "\(answer)")
        }
    }
}
