import Foundation
import Testing
import TestSupport

/// Issue 24, item 5: `warmer serve` parses a large `POST …/batches` body
/// itself and sends Redis its URLs 1,000 a call, so that no Redis call
/// decodes (or even carries) the whole document; a refused one is answered
/// with the intake list's text and writes nothing. On a redis-server of the
/// test's own, watched with MONITOR.
@Suite("Large API bodies")
struct LargeSubmissionServeTests {
    private static func body(batch: String, count: Int, extra: String = "") -> String {
        // Never fetched (no worker runs); port 9 on loopback is closed.
        let urls = (0..<count).map { #""http://127.0.0.1:9/\#(batch)/\#($0).jpg""# }.joined(separator: ",")
        return #"{"v":1,"batch":"\#(batch)"\#(extra),"urls":[\#(urls)]}"#
    }

    @Test func aLargeBodyIsParsedByTheServerAndNoRedisCallCarriesItWhole() async throws {
        let redis = try await RedisServer.start()
        defer { redis.stop() }
        let queue = try QueueProbe(redisURL: redis.url)
        let monitor = try await RedisMonitor(port: redis.port, directory: redis.directory)
        defer { monitor.stop() }
        let body = Self.body(batch: "large-body", count: 10_000)
        let refused = Self.body(batch: "refused-body", count: 10_000, extra: #","priority":"urgent""#)

        try await withServe(queue: queue) { serve in
            let path = "/v1/queues/\(queue.name)/batches"
            let created = try await serve.request("POST", path, body: body)
            #expect(created.status == 201, "\(created)")
            #expect(created.json["newJobs"] as? Int == 0 && created.json["staged"] as? Int == 10_000, "\(created.json)")
            let problem = try await serve.request("POST", path, body: refused)
            #expect(problem.status == 422 && problem.code == "invalid_document", "\(problem)")
            #expect(problem.json["detail"] as? String == #"unknown "priority""#, "\(problem.json)")
        }

        // Every URL reached Redis, but no command held more than a fraction of the body
        let lines = try await monitor.lines()
        #expect(lines.contains { $0.contains("large-body/9999.jpg") })
        let longest = lines.map(\.utf8.count).max() ?? 0
        #expect(longest < body.utf8.count / 4, "a command of \(longest) bytes for a body of \(body.utf8.count)")
        // and the batch counts each URL once; the refused body wrote nothing
        let status = try await queue.queue.status(ofBatch: "large-body")
        #expect(status.total == 10_000 && status.pending == 10_000, "\(status)")
        #expect(try await queue.queue.statistics().staged == 10_000)
        let leftovers = try await redisCLI(url: redis.url, ["KEYS", "*refused-body*"]).standardOutput
        #expect(leftovers.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(leftovers)")
        let pushed = try await redisCLI(url: redis.url, ["KEYS", "*intake:submitting:*"]).standardOutput
        #expect(pushed.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(pushed)")
    }
}
