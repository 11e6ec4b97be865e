import Foundation
@testable import RedisKit
import Testing
@testable import Scheduler

/// claim.lua, finish.lua, release.lua and renew.lua called directly on
/// crafted jobs: what each replies, writes and publishes, and what it refuses.
@Suite("Working scripts")
struct WorkingScriptTests {
    @Test func claimPromotesDueRetriesRecoversExpiredLeasesAndLeasesTheBestJobs() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 3)
        try await h.queuedJob("1", batch: "b", url: "https://a.example/1", score: 100)
        // A retry that is due (score 50 in the job, due at 0 in `delayed`)…
        try await h.job("2", ["url": "https://a.example/2", "b:b": "1", "destination": "disk", "state": "delayed", "score": "50"])
        try await h.send(["ZADD", h.keys.delayed, "0", "2"])
        // …and a job whose lease expired (its worker died), scored after both.
        try await h.activeJob("3", batch: "b", url: "https://a.example/3", worker: "x", token: "x/1", leaseDeadline: 0)
        try await h.send(["HSET", h.keys.job("3"), "score", "200"])

        let reply = try await h.call(QueueScripts.claim, ["2", "w"]).array
        let claimed = reply[0].array.map { $0.array.compactMap(\.string) }
        #expect(claimed.map { $0[0] } == ["2", "1"])
        #expect(claimed.first?[6] == "w/1" && claimed.first?[7] == "b", "\(claimed)")
        let report = reply[1].array.map { $0.array.compactMap(\.string) }
        #expect(report == [["stalled", "3", "https://a.example/3", "b", "1", "x"]])

        let job = try await h.hash(h.keys.job("1"))
        #expect(job["state"] == "active" && job["lease"] == "w/1" && job["worker"] == "w" && job["attempts"] == "1", "\(job)")
        #expect(Set(try await h.scores(h.keys.leases).keys) == ["1", "2"])
        #expect(try await h.scores(h.keys.queue) == ["3": 200])
        let events = try await h.events(h.keys.batchEvents("b"))
        #expect(events.map { $0["type"] } == ["stalled", "started", "started"])
        #expect(events.last?["job"] == "1" && events.last?["worker"] == "w" && events.last?["batch"] == "b")
    }

    @Test func claimHandsOutNothingWhileTheQueueIsPaused() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 1)
        try await h.queuedJob("1", batch: "b", url: "https://a.example/1", score: 100)
        try await h.send(["HSET", h.keys.config, "paused", "1"])
        let reply = try await h.call(QueueScripts.claim, ["5", "w"]).array
        #expect(reply[0].array.isEmpty)
        #expect(try await h.scores(h.keys.queue) == ["1": 100])
    }

    @Test func finishEndsTheJobCountsItAndCompletesTheBatch() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 1)
        try await h.activeJob("1", batch: "b", url: "https://a.example/1")
        let reply = try await h.call(QueueScripts.finish, ["w", "0", "1", "1", "w/1", "completed", "origin", "123", "", "", "0"])
        #expect(reply.array.map(\.array.count) == [0, 0, 0])

        let job = try await h.hash(h.keys.job("1"))
        #expect(job["state"] == "completed" && job["finishedAt"] != nil && job["lease"] == "", "\(job)")
        #expect(try await h.send(["TTL", h.keys.job("1")]).integer ?? 0 > 0)
        #expect(try await h.scores(h.keys.leases).isEmpty)
        #expect(try await h.send(["HEXISTS", h.keys.work, "disk||https://a.example/1"]).integer == 0)
        let batch = try await h.hash(h.keys.batch("b"))
        #expect(batch["completed"] == "1" && batch["finishedAt"] != nil, "\(batch)")
        let events = try await h.events(h.keys.batchEvents("b"))
        #expect(events.map { $0["type"] } == ["completed", "batchCompleted"])
        #expect(events.first?["source"] == "origin" && events.first?["bytes"] == "123" && events.first?["worker"] == "w")
        #expect(try await h.events(h.keys.events).map { $0["type"] } == ["completed", "batchCompleted"])
    }

    @Test func finishReportsALeaseThatIsNotTheJobsAsLostAndOnlyCountsTheRefusal() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 1)
        try await h.activeJob("1", batch: "b", url: "https://a.example/1", token: "w/2")
        let reply = try await h.call(QueueScripts.finish, ["w", "0", "1", "1", "w/1", "completed", "", "", "", "", "0"]).array
        #expect(reply[2].array.map(\.string) == ["1"])
        let job = try await h.hash(h.keys.job("1"))
        #expect(job["state"] == "active" && job["refusedEnds"] == "1", "\(job)")
        #expect((try await h.hash(h.keys.batch("b"))["completed"] ?? "0") == "0")
        #expect(try await h.events(h.keys.events).isEmpty)
    }

    @Test func finishEndsSeveralJobsInOrderSkipsALostLeaseAndClaimsForAll() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 3)
        try await h.activeJob("1", batch: "b", url: "https://a.example/1")
        try await h.activeJob("2", batch: "b", url: "https://a.example/2", token: "w/9")
        try await h.activeJob("3", batch: "b", url: "https://a.example/3")
        try await h.batch("c", total: 2)
        try await h.queuedJob("4", batch: "c", url: "https://a.example/4", score: 100)
        try await h.queuedJob("5", batch: "c", url: "https://a.example/5", score: 200)
        let reply = try await h.call(QueueScripts.finish, [
            "w", "2", "3",
            "1", "w/1", "completed", "origin", "10", "", "", "0",
            "2", "w/1", "completed", "origin", "20", "", "", "0",
            "3", "w/1", "failed", "", "", "http_404", "gone", "0",
        ]).array
        #expect(reply[0].array.map { $0.array.first?.string } == ["4", "5"])
        #expect(reply[2].array.map(\.string) == ["2"])
        #expect(try await h.hash(h.keys.job("1"))["state"] == "completed")
        #expect(try await h.hash(h.keys.job("2"))["state"] == "active")
        #expect(try await h.hash(h.keys.job("3"))["state"] == "failed")
        let batch = try await h.hash(h.keys.batch("b"))
        #expect(batch["completed"] == "1" && batch["failed"] == "1" && batch["finishedAt"] == nil, "\(batch)")
        let events = try await h.events(h.keys.events)
        #expect(events.map { $0["type"] } == ["completed", "failed", "started", "started"])
        #expect(events.map { $0["job"] } == ["1", "3", "4", "5"])
    }

    @Test func finishDeadLettersAJobAtItsTimeOrAboveTheNewestDeadLetter() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 3)
        for id in ["1", "2", "3"] { try await h.activeJob(id, batch: "b", url: "https://a.example/\(id)") }
        // Above a long-past entry: the job's end time.
        try await h.send(["ZADD", h.keys.dead, "1", "past"])
        _ = try await h.call(QueueScripts.finish, ["w", "0", "1", "1", "w/1", "failed", "", "", "http_404", "gone", "0"])
        let finishedAt = try #require(Double(try await h.hash(h.keys.job("1"))["finishedAt"] ?? ""))
        #expect(try await h.scores(h.keys.dead)["1"] == finishedAt)
        // Below an entry ahead of the clock (year 2255): one above it, in the order the jobs end.
        try await h.send(["ZADD", h.keys.dead, "9000000000000", "ahead"])
        _ = try await h.call(QueueScripts.finish, [
            "w", "0", "2",
            "3", "w/1", "dead", "", "", "invalid_url", "bad", "0",
            "2", "w/1", "failed", "", "", "http_404", "gone", "0",
        ])
        let scores = try await h.scores(h.keys.dead)
        #expect(scores["3"] == 9_000_000_000_001 && scores["2"] == 9_000_000_000_002, "\(scores)")
        #expect(try #require(Double(try await h.hash(h.keys.job("2"))["finishedAt"] ?? "")) < 9e12)
    }

    @Test func finishWithRetryParksTheJobForItsBackoffAndMasksTheMessage() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 1)
        try await h.activeJob("1", batch: "b", url: "https://a.example/1")
        let before = try await h.now()
        _ = try await h.call(QueueScripts.finish, ["w", "0", "1", "1", "w/1", "retry", "", "", "http_503", "from http://u:pw@h/x", "5000"])
        let due = try #require(try await h.scores(h.keys.delayed)["1"])
        #expect(due >= before + 5000 && due < before + 65_000)
        let job = try await h.hash(h.keys.job("1"))
        #expect(job["state"] == "delayed" && job["lease"] == nil && job["message"] == "from http://u:***@h/x", "\(job)")
        let event = try #require(try await h.events(h.keys.batchEvents("b")).first)
        #expect(event["type"] == "delayed" && event["retry_in_ms"] == "5000" && event["error"] == "http_503", "\(event)")
    }

    @Test func finishEndsAJobCancelledWhileItRanAsCancelledWithoutAWorker() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 1)
        try await h.activeJob("1", batch: "b", url: "https://a.example/1")
        try await h.send(["HSET", h.keys.job("1"), "state", "cancelling"])
        _ = try await h.call(QueueScripts.finish, ["w", "0", "1", "1", "w/1", "failed", "", "", "http_404", "gone", "0"])
        #expect(try await h.hash(h.keys.job("1"))["state"] == "cancelled")
        let event = try #require(try await h.events(h.keys.batchEvents("b")).first)
        #expect(event["type"] == "cancelled" && event["worker"] == nil, "\(event)")
        #expect(try await h.scores(h.keys.dead).isEmpty)
    }

    @Test func releaseGivesTheJobBackAtItsScoreWithoutCountingTheAttempt() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 1)
        try await h.activeJob("1", batch: "b", url: "https://a.example/1")
        #expect(try await h.call(QueueScripts.release, ["1", "w/1"]) == .integer(1))
        let job = try await h.hash(h.keys.job("1"))
        #expect(job["state"] == "queued" && job["attempts"] == "0" && job["lease"] == nil && job["worker"] == nil, "\(job)")
        #expect(try await h.scores(h.keys.queue) == ["1": 1000])
        #expect(try await h.scores(h.keys.leases).isEmpty)
        #expect(try await h.send(["LRANGE", h.keys.intake, "0", "-1"]).array.compactMap(\.string) == ["wake"])
    }

    @Test func releaseOfALostLeaseChangesNothing() async throws {
        let h = try QueueScriptHarness()
        try await h.activeJob("1", batch: "b", url: "https://a.example/1", token: "v/2")
        #expect(try await h.call(QueueScripts.release, ["1", "w/1"]) == .integer(0))
        #expect(try await h.hash(h.keys.job("1"))["state"] == "active")
    }

    @Test func renewExtendsHeldLeasesAndReportsLostAndCancelledJobs() async throws {
        let h = try QueueScriptHarness()
        try await h.activeJob("1", batch: "b", url: "https://a.example/1", leaseDeadline: 1e12)
        // Claimed again by another worker since: lost.
        try await h.activeJob("2", batch: "b", url: "https://a.example/2", worker: "v", token: "v/2")
        try await h.send(["HSET", h.keys.job("2"), "claims", "2"])
        // Being cancelled while it runs.
        try await h.activeJob("3", batch: "b", url: "https://a.example/3")
        try await h.send(["HSET", h.keys.job("3"), "state", "cancelling"])
        let before = try await h.now()
        let reply = try await h.call(QueueScripts.renew, ["1", "w/1", "2", "w/1", "3", "w/1"]).array
        #expect(reply.map { $0.array.compactMap(\.string) } == [["2"], ["3"], []])
        let deadline = try #require(try await h.scores(h.keys.leases)["1"])
        #expect(deadline >= before + Double(h.leaseMs) && deadline < before + Double(h.leaseMs) + 60_000)
    }
}
