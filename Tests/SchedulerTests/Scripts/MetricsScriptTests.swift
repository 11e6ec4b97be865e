import Foundation
@testable import RedisKit
import Testing
@testable import Scheduler

/// What finalize (ends.lua) keeps for the dashboard, seen through finish.lua
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
        _ = try await h.call(QueueScripts.finish, ["w", "0", "1", "1", "w/1", "completed", "origin", "123", "", "", "0"])
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
        _ = try await h.call(QueueScripts.finish, ["w", "0", "1", "1", "w/1", "failed", "", "", "http_404", "HTTP 404", "0"])

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

    @Test func aFinishOfSeveralEndsCountsEachOnceAndKeepsTheirFailuresNewestFirst() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 4)
        for id in ["1", "2", "3", "4"] { try await h.activeJob(id, batch: "b", url: "https://a.example/\(id)") }
        _ = try await h.call(QueueScripts.finish, [
            "w", "0", "4",
            "1", "w/1", "completed", "origin", "100", "", "", "0",
            "2", "w/1", "failed", "", "", "http_404", "first", "0",
            "3", "w/1", "dead", "", "", "invalid_url", "second", "0",
            "4", "w/1", "completed", "disk", "20", "", "", "0",
        ])
        let metrics = try await h.hash(h.keys.metrics)
        #expect(metrics["completed"] == "2" && metrics["failed"] == "2" && metrics["bytes"] == "120", "\(metrics)")
        let batch = try await h.hash(h.keys.batch("b"))
        #expect(batch["completed"] == "2" && batch["failed"] == "1" && batch["dead"] == "1" && batch["finishedAt"] != nil, "\(batch)")
        #expect(try await h.send(["SCARD", h.keys.batch("b") + ":jobs"]).integer == 0)
        #expect(try await h.scores(h.keys.leases).isEmpty)
        let messages = try await h.send(["LRANGE", h.keys.batchFailures("b"), "0", "-1"]).array.compactMap(\.string)
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.map { $0["message"] as? String }
        #expect(messages == ["second", "first"])
        let events = try await h.events(h.keys.batchEvents("b")).map { $0["type"] }
        #expect(events == ["completed", "failed", "deadLettered", "completed", "batchCompleted"])
    }
}
