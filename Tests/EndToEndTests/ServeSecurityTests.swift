import Foundation
import Testing
import TestSupport

/// `warmer serve` against callers it must refuse: no token or a read token
/// where an admin one is needed, a public address without tokens, bodies
/// past the limit, header floods and slow clients — each while other
/// callers keep being answered. The token checks run on every route that
/// changes something (docs/openapi.yaml).
@Suite("Serve security")
struct ServeSecurityTests {
    /// Every operation of docs/openapi.yaml that changes something (every
    /// method but GET), its path parameters filled in.
    private func adminRoutes(_ queue: String) throws -> [(String, String)] {
        // (HEAD is a read, as GET.)
        try ServeContractTests.documentedOperations().filter { !$0.hasPrefix("GET ") && !$0.hasPrefix("HEAD ") }.sorted().map { operation in
            let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
            let path = parts[1].replacingOccurrences(of: "{queue}", with: queue)
                .replacingOccurrences(of: "{batch}", with: "b").replacingOccurrences(of: "{job}", with: "1")
            return (parts[0], path)
        }
    }

    /// Every GET of docs/openapi.yaml that needs a token, its path parameters filled in.
    private func protectedReads(_ queue: String) throws -> [String] {
        try ServeContractTests.documentedOperations().filter { $0.hasPrefix("GET /v1/") }.sorted().map { operation in
            String(operation.dropFirst(4)).replacingOccurrences(of: "{queue}", with: queue)
                .replacingOccurrences(of: "{batch}", with: "b").replacingOccurrences(of: "{job}", with: "1")
        }
    }

    /// Reads that answer 200 on an empty queue.
    private func readRoutes(_ queue: String) -> [String] {
        ["/v1/queues/\(queue)", "/v1/queues/\(queue)/workers", "/v1/queues/\(queue)/dead"]
    }

    @Test func changesNeedAnAdminTokenAndReadsAnyToken() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue) { serve in
            let body = #"{"v":1,"urls":["https://a.example/x"],"priority":"high","all":true}"#
            let routes = try adminRoutes(queue.name)
            #expect(routes.count >= 9, "\(routes)")
            for (method, path) in routes {
                let anonymous = try await serve.request(method, path, token: nil, body: body)
                #expect(anonymous.status == 401 && anonymous.code == "unauthorized", "\(method) \(path): \(anonymous)")
                #expect(anonymous.headers["www-authenticate"] == #"Bearer realm="warmer""#, "\(method) \(path)")
                let wrong = try await serve.request(method, path, token: "not-a-known-token-at-all", body: body)
                #expect(wrong.status == 401, "\(method) \(path): \(wrong)")
                let reader = try await serve.request(method, path, token: ServeProcess.readToken, body: body)
                #expect(reader.status == 403 && reader.code == "forbidden", "\(method) \(path): \(reader)")
            }
            // Nothing was changed by any of them.
            #expect(try await queue.queue.queuedCount() == 0)
            #expect(try await queue.queue.statistics().isPaused == false)
            for path in try protectedReads(queue.name) {
                let anonymous = try await serve.request("GET", path, token: nil, record: false)
                #expect(anonymous.status == 401 && anonymous.headers["www-authenticate"] != nil, "\(path): \(anonymous)")
            }
            for path in readRoutes(queue.name) {
                for token in [ServeProcess.readToken, ServeProcess.adminToken] {
                    let answer = try await serve.request("GET", path, token: token)
                    #expect(answer.status == 200, "\(path): \(answer)")
                }
            }
            // The probes and the contract need none.
            for path in ["/healthz", "/readyz", "/openapi.yaml"] {
                #expect(try await serve.request("GET", path, token: nil).status == 200, "\(path)")
            }
        }
    }

    @Test func corsAnswersTheConfiguredOriginsOnlyAndIsOffByDefault() async throws {
        let queue = try QueueProbe()
        let path = "/v1/queues/\(queue.name)"
        // Given no cors-origins, a page's request from any origin gets no CORS header
        try await withServe(queue: queue) { serve in
            let answer = try await serve.request("GET", path, headers: ["Origin": "https://ops.example.com"])
            #expect(answer.status == 200 && answer.headers["access-control-allow-origin"] == nil, "\(answer)")
        }
        // Given one origin allowed, its preflight is answered, another origin's request gets no CORS header
        try await withServe(queue: queue, arguments: ["--cors-origin", "https://ops.example.com"]) { serve in
            let preflight = try await serve.request(
                "OPTIONS", path + "/batches", token: nil, headers: ["Origin": "https://ops.example.com", "Access-Control-Request-Method": "POST"],
                record: false)
            #expect(preflight.headers["access-control-allow-origin"] == "https://ops.example.com", "\(preflight)")
            #expect(preflight.headers["access-control-allow-methods"]?.contains("POST") == true, "\(preflight)")
            let allowed = try await serve.request("GET", path, headers: ["Origin": "https://ops.example.com"])
            #expect(allowed.headers["access-control-allow-origin"] == "https://ops.example.com", "\(allowed)")
            let other = try await serve.request("GET", path, headers: ["Origin": "https://elsewhere.example"])
            #expect(other.status == 200 && other.headers["access-control-allow-origin"] == nil, "\(other)")
        }
    }

    @Test func aPublicAddressWithoutTokensIsRefusedAtStart() async throws {
        let queue = try QueueProbe()
        let port = try freeLoopbackPort()
        let result = try await warmer(["serve"] + queue.redisArguments + ["--http-host", "0.0.0.0", "--http-port", String(port)])
        #expect(result.exited && result.status != 0, "\(result)")
        #expect(result.standardError.contains("--http-host 0.0.0.0 is not a loopback address"), "\(result)")
        #expect(result.standardError.contains("WARMER_ADMIN_TOKENS"), "\(result)")
    }

    @Test func aBodyPastTheLimitIsRefusedWith413WhetherDeclaredOrStreamed() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, arguments: ["--max-body", "1"]) { serve in
            let path = "/v1/queues/\(queue.name)/batches"
            let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServeProcess.adminToken)\r\n"
                + "Content-Type: application/json\r\nConnection: close\r\n"
            let declared = try await offCooperativePool { [port = serve.port] in
                let connection = try RawHTTPConnection(port: port)
                defer { connection.close() }
                connection.send(head + "Content-Length: \(2 << 20)\r\n\r\n")
                return connection.receiveResponse()
            }
            #expect(RawHTTPConnection.status(of: declared) == 413, "\(declared)")
            #expect(declared.contains("application/problem+json") && declared.contains(#""code":"body_too_large""#), "\(declared)")

            let streamed = try await offCooperativePool { [port = serve.port] in
                let connection = try RawHTTPConnection(port: port)
                defer { connection.close() }
                connection.send(head + "Transfer-Encoding: chunked\r\n\r\n")
                let chunk = "10000\r\n" + String(repeating: " ", count: 0x10000) + "\r\n"
                // Up to 3 MiB in 64 KiB chunks, until the server answers.
                connection.sendUntilAnswered(chunk, count: 48)
                if !connection.hasAnswer { connection.send("0\r\n\r\n") }
                return connection.receiveResponse()
            }
            #expect(RawHTTPConnection.status(of: streamed) == 413, "\(streamed.prefix(400))")
            #expect(streamed.contains(#""code":"body_too_large""#), "\(streamed.prefix(400))")
            #expect(try await queue.queue.queuedCount() == 0)
            // And a body within the limit is still taken.
            let small = try await serve.request("POST", path, body: #"{"v":1,"urls":["https://a.example/x"]}"#)
            #expect(small.status == 201, "\(small)")
        }
    }

    /// Runs `attack` on a connection of its own while a normal client
    /// keeps reading the queue; returns what the attack received, and
    /// checks that every normal request was answered 200.
    private func whileOthersAreServed(
        _ serve: ServeProcess, queue: QueueProbe, _ attack: @escaping @Sendable (RawHTTPConnection) -> String
    ) async throws -> String {
        let done = CompletionFlag()
        async let received: String = offCooperativePool { [port = serve.port] in
            defer { done.set() }
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return attack(connection)
        }
        var answered: [Int] = []
        repeat {
            answered.append(try await serve.request("GET", "/v1/queues/\(queue.name)", token: ServeProcess.readToken).status)
        } while !done.isSet || answered.count < 5
        #expect(answered.allSatisfy { $0 == 200 }, "\(answered)")
        return try await received
    }

    @Test func headerFloodsAreRefusedWhileOtherClientsAreAnswered() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue) { serve in
            let manyFields = try await whileOthersAreServed(serve, queue: queue) { connection in
                connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                for index in 0..<200 where connection.send("X-Flood-\(index): \(index)\r\n") {}
                connection.send("\r\n")
                return connection.receiveResponse()
            }
            #expect([400, 431].contains(RawHTTPConnection.status(of: manyFields) ?? 0) || manyFields.isEmpty, "\(manyFields)")
            #expect(!manyFields.contains(#"{"ok":true}"#), "200 header fields were served: \(manyFields)")

            let hugeField = try await whileOthersAreServed(serve, queue: queue) { connection in
                connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Huge: ")
                connection.send(String(repeating: "a", count: 64 << 10))
                connection.send("\r\n\r\n")
                return connection.receiveResponse()
            }
            #expect([400, 431].contains(RawHTTPConnection.status(of: hugeField) ?? 0) || hugeField.isEmpty, "\(hugeField)")
            #expect(!hugeField.contains(#"{"ok":true}"#), "a 64 KiB header was served: \(hugeField)")
        }
    }

    @Test func aClientSendingItsHeadersByteByByteBlocksNoOne() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue) { serve in
            let slow = try await whileOthersAreServed(serve, queue: queue) { connection in
                for byte in "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8 {
                    guard connection.send([byte]) else { break }
                    Thread.sleep(forTimeInterval: 0.05)
                }
                return connection.receiveResponse()
            }
            // The slow client is served too, once its request is complete.
            #expect(RawHTTPConnection.status(of: slow) == 200, "\(slow)")
        }
    }
}
