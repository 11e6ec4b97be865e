import Foundation
import Testing
import TestSupport

/// `warmer serve` against callers it must refuse: a public address without
/// tokens, bodies past the limit, header floods and slow clients — each
/// while other callers keep being answered. The tokens' scopes on every
/// route of docs/openapi.yaml and CORS are WarmerServerTests'
/// (`BearerTokenAccessTests`, `LoopbackGuardMiddlewareTests`), in-process.
@Suite("Serve security")
struct ServeSecurityTests {
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
