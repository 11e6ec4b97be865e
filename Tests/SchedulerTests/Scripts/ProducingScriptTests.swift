import Foundation
@testable import RedisKit
import Testing
@testable import Scheduler

/// enqueue.lua and publish-while-leased.lua called directly on crafted
/// state: new jobs, coalescing with a running job, refusals, and a worker's
/// event published only under its lease.
@Suite("Producing scripts")
struct ProducingScriptTests {
    /// enqueue.lua's arguments before the URLs.
    private func header(
        batch: String = "b", priority: String = "normal", total: String, timeout: String = "", group: String = "", freshFor: String = ""
    ) -> [String] {
        [batch, priority, "disk", "", total, timeout, group, freshFor]
    }

    @Test func enqueueAddsNewJobsAndJoinsARunningJobDoingTheSameWork() async throws {
        let h = try QueueScriptHarness()
        // Job 7 already warms A for batch `old`, at normal priority.
        try await h.batch("old", total: 1)
        try await h.activeJob("7", batch: "old", url: "https://a.example/A", worker: "w1", token: "w1/1")
        let reply = try await h.call(QueueScripts.enqueue, header(priority: "high", total: "2") + ["https://a.example/A", "https://a.example/B"])
        #expect(reply == .array([.integer(1), .integer(0), .integer(0)]), "one new job, none recent, none staged")

        // B is a new job (ids 1 and 2 reserved, 1 unused as A joined job 7).
        let new = try await h.hash(h.keys.job("2"))
        #expect(new["url"] == "https://a.example/B" && new["state"] == "queued" && new["b:b"] == "1", "\(new)")
        #expect(new["priority"] == "high" && new["aging"] == "60000" && new["timeout"] == nil, "\(new)")
        #expect(try await h.send(["EXISTS", h.keys.job("1")]).integer == 0)
        #expect(Set(try await h.scores(h.keys.queue).keys) == ["2"])
        let batch = try await h.hash(h.keys.batch("b"))
        #expect(batch["total"] == "2" && batch["priority"] == "high", "\(batch)")
        #expect(Set(try await h.send(["SMEMBERS", h.keys.batchJobs("b")]).array.compactMap(\.string)) == ["2", "7"])
        // Job 7 now counts in `b`, takes its priority, and its worker is told.
        let joined = try await h.hash(h.keys.job("7"))
        #expect(joined["b:b"] == "1" && joined["priority"] == "high", "\(joined)")
        let control = try await h.events(h.keys.control)
        #expect(control.count == 1 && control.first?["type"] == "priority" && control.first?["job"] == "7", "\(control)")
        let started = try await h.events(h.keys.batchEvents("b"))
        #expect(started.count == 1 && started.first?["type"] == "started" && started.first?["worker"] == "w1", "\(started)")
        #expect(try await h.send(["LRANGE", h.keys.intake, "0", "-1"]).array.compactMap(\.string) == ["wake"])
    }

    @Test func enqueueScoresABandAgingMillisecondsBehindTheOneAbove() async throws {
        let h = try QueueScriptHarness()
        _ = try await h.call(QueueScripts.enqueue, header(batch: "n", priority: "normal", total: "1") + ["https://a.example/n"])
        _ = try await h.call(QueueScripts.enqueue, header(batch: "l", priority: "low", total: "1", timeout: "90") + ["https://a.example/l"])
        let scores = try await h.scores(h.keys.queue)
        let normal = try #require(scores["1"]), low = try #require(scores["2"])
        // Arrival stamps are µs of the queue clock, one apart at the least.
        #expect(low - normal >= Double(h.agingMs) * 1000 && low - normal < Double(h.agingMs) * 1000 + 60_000_000)
        #expect(try await h.hash(h.keys.job("2"))["timeout"] == "90")
    }

    @Test func enqueueScoresANewBatchByItsTimeOrAboveTheNewestBatchOfTheIndex() async throws {
        let h = try QueueScriptHarness()
        // Below a long-past entry: the batch's time.
        try await h.send(["ZADD", h.keys.batches, "1", "past"])
        _ = try await h.call(QueueScripts.enqueue, header(batch: "x", total: "1") + ["https://a.example/x"])
        let createdAt = try #require(Double(try await h.hash(h.keys.batch("x"))["createdAt"] ?? ""))
        #expect(try await h.scores(h.keys.batches)["x"] == createdAt)
        // Below an entry ahead of the clock (year 2255): one above it, then one above that.
        try await h.send(["ZADD", h.keys.batches, "9000000000000", "ahead"])
        _ = try await h.call(QueueScripts.enqueue, header(batch: "y", total: "1") + ["https://a.example/y"])
        _ = try await h.call(QueueScripts.enqueue, header(batch: "z", total: "1") + ["https://a.example/z"])
        let scores = try await h.scores(h.keys.batches)
        #expect(scores["y"] == 9_000_000_000_001 && scores["z"] == 9_000_000_000_002, "\(scores)")
        #expect(try #require(Double(try await h.hash(h.keys.batch("z"))["createdAt"] ?? "")) < 9e12)
    }

    @Test(arguments: [
        ["b", "urgent", "disk", "", "1", "", "", ""], ["b", "normal", "memory", "", "1", "", "", ""],
        ["b", "normal", "disk", "", "-1", "", "", ""], ["b", "normal", "disk", "", "1", "86401", "", ""],
        ["b", "normal", "disk", "", "1", "", "a:b", ""], ["b", "normal", "disk", "", "1", "", "", "2592001"],
        ["b", "normal", "disk", "", "1", "", "", "-1"], ["b", "normal", "disk", "", "1", "", "", "soon"],
    ])
    func enqueueRefusesArgumentsItNeverGetsBeforeWritingAnything(arguments: [String]) async throws {
        let h = try QueueScriptHarness()
        let message = try await h.refusal(QueueScripts.enqueue, arguments + ["https://a.example/x"])
        #expect(message?.hasPrefix("BAD_ARGUMENT") == true, "\(message ?? "replied")")
        let written = try await h.send(["EXISTS", h.keys.batch("b"), h.keys.sequence, h.keys.queue, h.keys.intake])
        #expect(written.integer == 0)
    }

    @Test func publishWhileLeasedPublishesInEveryBatchOfTheJobWithPasswordsMasked() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("a", total: 1)
        try await h.batch("b", total: 1)
        try await h.activeJob("1", batch: "a", url: "https://a.example/1")
        try await h.send(["HSET", h.keys.job("1"), "b:b", "1"])
        let event = ["v", "1", "type", "progress", "job", "1", "url", "https://u:pw@a.example/1", "received", "10"]
        #expect(try await h.call(QueueScripts.publishWhileLeased, ["1", "w/1"] + event) == .integer(1))
        for batch in ["a", "b"] {
            let published = try await h.events(h.keys.batchEvents(batch))
            #expect(published.count == 1, "\(batch): \(published)")
            #expect(published.first?["url"] == "https://u:***@a.example/1" && published.first?["batch"] == batch)
            #expect(published.first?["received"] == "10")
        }
        #expect(try await h.events(h.keys.events).count == 2)
    }

    @Test func publishWhileLeasedPublishesNothingOnceTheLeaseIsAnothers() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("a", total: 1)
        try await h.activeJob("1", batch: "a", url: "https://a.example/1", worker: "v", token: "v/2")
        #expect(try await h.call(QueueScripts.publishWhileLeased, ["1", "w/1", "type", "progress"]) == .integer(0))
        #expect(try await h.events(h.keys.events).isEmpty)
        #expect(try await h.events(h.keys.batchEvents("a")).isEmpty)
    }
}
