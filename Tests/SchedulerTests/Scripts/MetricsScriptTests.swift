import Foundation
@testable import RedisKit
import Testing
@testable import Scheduler

/// What finalize (queue.lua) keeps for the dashboard, seen through finish.lua
/// and claim.lua called directly: the throughput counters and a batch's
/// failure list.
@Suite("Metrics scripts")
struct MetricsScriptTests {
    /// The Redis clock's current second.
    private func second(_ h: QueueScriptHarness) async throws -> Int {
        try #require(try await h.send(["TIME"]).array.first?.string.flatMap { Int($0) })
    }

    @Test func finishCountsACompletionAndItsBytesInTheCurrentSecond() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 2)
        try await h.activeJob("1", batch: "b", url: "https://a.example/1")
        let before = try await second(h)
        _ = try await h.call(QueueScripts.finish, ["1", "w/1", "completed", "w", "origin", "123", "", "", "0", "0"])
        let metrics = try await h.hash(h.keys.metrics)
        #expect(metrics["completed"] == "1" && metrics["failed"] == "0" && metrics["bytes"] == "123", "\(metrics)")
        #expect((Int(metrics["second"] ?? "") ?? 0) >= before, "\(metrics)")
        #expect(try await h.send(["LLEN", h.keys.metricsSeconds]).integer == 0)
        #expect(try await h.send(["EXISTS", h.keys.batchFailures("b")]).integer == 0)
    }

    @Test func aFailureRollsAPastSecondIntoTheListAndGoesToTheBatchsFailures() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 2)
        try await h.activeJob("1", batch: "b", url: "https://u:pw@a.example/1")
        let past = try await second(h) - 3
        try await h.write(h.keys.metrics, ["second": String(past), "completed": "4", "failed": "2", "bytes": "400"])
        _ = try await h.call(QueueScripts.finish, ["1", "w/1", "failed", "w", "", "", "http_404", "HTTP 404", "0", "0"])

        #expect(try await h.send(["LRANGE", h.keys.metricsSeconds, "0", "-1"]).array.compactMap(\.string) == ["\(past) 4 2 400"])
        let metrics = try await h.hash(h.keys.metrics)
        #expect(metrics["completed"] == "0" && metrics["failed"] == "1" && metrics["bytes"] == "0", "\(metrics)")
        let entries = try await h.send(["LRANGE", h.keys.batchFailures("b"), "0", "-1"]).array.compactMap(\.string)
        let entry = try #require(entries.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(entries.count == 1)
        #expect(entry["job"] as? String == "1" && entry["state"] as? String == "failed" && entry["error"] as? String == "http_404")
        #expect(entry["url"] as? String == "https://u:***@a.example/1" && entry["message"] as? String == "HTTP 404")
        #expect(entry["at"] is NSNumber)
    }

    @Test func aJobDeadLetteredForStallingIsCountedAsFailedByTheClaimsHousekeeping() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 1)
        try await h.activeJob("1", batch: "b", url: "https://a.example/1", worker: "x", token: "x/1", leaseDeadline: 0)
        try await h.send(["HSET", h.keys.job("1"), "stalls", "2", "score", "100"])
        _ = try await h.call(QueueScripts.claim, ["1", "w"])
        #expect(try await h.hash(h.keys.metrics)["failed"] == "1")
        let entry = try await h.send(["LINDEX", h.keys.batchFailures("b"), "0"]).string ?? ""
        #expect(entry.contains(#""state":"dead""#) && entry.contains(#""error":"stalled""#), "\(entry)")
        // The batch finished with it: its failure list expires with it.
        #expect(try await h.send(["TTL", h.keys.batchFailures("b")]).integer ?? 0 > 0)
    }
}
