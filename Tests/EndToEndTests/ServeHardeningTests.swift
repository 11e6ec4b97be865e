import Foundation
import Testing
import TestSupport

/// Issue 23's hardening list and V2, against a real `warmer serve`: error
/// answers are never cached, the public probe does not say where Redis is,
/// a URL's password reaches neither a `not_cached` answer nor the debug
/// request log (percent-encoded as documented), and a malformed chunk size
/// is the client's error (400), not the server's.
@Suite("Serve hardening")
struct ServeHardeningTests {
    @Test func errorAnswersAreNeverStored() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue) { serve in
            let missing = try await serve.request("GET", "/v1/queues/\(queue.name)/batches/no-such-batch", token: ServeProcess.readToken)
            let anonymous = try await serve.request("GET", "/v1/queues/\(queue.name)", token: nil)
            // (A path the contract does not have: not recorded for its check.)
            let notFound = try await serve.request("GET", "/v1/nothing-here", token: ServeProcess.readToken, record: false)
            for answer in [missing, anonymous, notFound] {
                #expect(answer.status >= 400 && answer.headers["cache-control"] == "no-store", "\(answer.status) \(answer.headers)")
            }
        }
    }

    @Test func anEncodedURLsPasswordReachesNeitherTheAnswerNorTheLog() async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let password = "pl4in'" + UUID().uuidString.prefix(8)
        try await withServe(queue: queue, arguments: ["--cache-dir", cache.path]) { serve in
            // Given the URL percent-encoded, as docs/http-api.md says to call it
            let url = "http://alice:\(password)@127.0.0.1:1/x.jpg"
            let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(!encoded.contains(password))
            let answer = try await serve.request("GET", "/v1/cache?url=" + encoded, token: ServeProcess.readToken)
            // Then the answer is not_cached, with the URL masked, and the debug log masks it too
            #expect(answer.status == 404 && answer.code == "not_cached", "\(answer)")
            #expect(!answer.body.contains(password) && answer.body.contains("alice:***@"), "\(answer.body)")
            let logged = await eventually { serve.log.contains("/v1/cache?url=http://alice:***@127.0.0.1:1/x.jpg") }
            #expect(logged, "no masked request line:\n\(serve.log.suffix(2000))")
            let encodedPassword = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(!serve.log.contains(password) && !serve.log.contains(encodedPassword), "the log shows the password")
        }
    }

    @Test func theReadinessProbeDoesNotSayWhereRedisIs() async throws {
        let redis = try await RedisServer.start()
        let queue = try QueueProbe(redisURL: redis.url)
        try await withServe(queue: queue) { serve in
            #expect(try await serve.request("GET", "/readyz", token: nil).status == 200)
            redis.stop()
            let answer = try await serve.request("GET", "/readyz", token: nil, record: false)
            #expect(answer.status == 503, "\(answer)")
            let port = String(redis.url.split(separator: ":").last!)
            #expect(!answer.body.contains(port) && !answer.body.contains("127.0.0.1"), "\(answer.body)")
            // (The operator finds the cause in the log.)
            let logged = await eventually { serve.log.contains("readiness: Redis does not answer") }
            #expect(logged)
        }
    }

    @Test func aMalformedChunkSizeIsABadRequest() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue) { serve in
            let head = "POST /v1/queues/\(queue.name)/batches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer \(ServeProcess.adminToken)\r\nTransfer-Encoding: chunked\r\n\r\n"
            let answer = try await offCooperativePool { [port = serve.port] in
                let connection = try RawHTTPConnection(port: port)
                defer { connection.close() }
                connection.send(head + "zz\r\n{}\r\n0\r\n\r\n")
                return connection.receiveResponse()
            }
            #expect(RawHTTPConnection.status(of: answer) == 400, "\(answer)")
            #expect(!serve.log.contains(" error ["), "\(serve.log.suffix(1500))")
            #expect(!serve.log.contains("request failed"), "\(serve.log.suffix(1500))")
        }
    }
}
