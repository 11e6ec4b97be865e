import Foundation
@testable import RedisKit
import Testing
@testable import Scheduler

/// cancel.lua, priority.lua, dead-retry.lua, dead-purge.lua and
/// control-document.lua called directly on crafted state.
@Suite("Control scripts")
struct ControlScriptTests {
    @Test func cancelEndsABatchsQueuedJobsAndSignalsItsRunningOnes() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 2)
        try await h.queuedJob("1", batch: "b", url: "https://a.example/1", score: 100)
        try await h.activeJob("2", batch: "b", url: "https://a.example/2")
        let reply = try await h.call(QueueScripts.cancel, ["b", "10"])
        #expect(reply.array.compactMap(\.integer) == [2, 1, 0, 0]) // cancelled, signalled, left, already finished (no)

        #expect(try await h.hash(h.keys.job("1"))["state"] == "cancelled")
        #expect(try await h.scores(h.keys.queue).isEmpty)
        #expect(try await h.hash(h.keys.job("2"))["state"] == "cancelling")
        let control = try await h.events(h.keys.control)
        #expect(control.map { $0["type"] } == ["cancel"] && control.first?["job"] == "2" && control.first?["lease"] == "w/1")
        let batch = try await h.hash(h.keys.batch("b"))
        #expect(batch["cancelled"] == "2" && batch["cancelledAt"] != nil && batch["finishedAt"] != nil, "\(batch)")
        let events = try await h.events(h.keys.batchEvents("b"))
        #expect(events.filter { $0["type"] == "cancelled" }.count == 2 && events.last?["type"] == "batchCompleted", "\(events)")
    }

    @Test func cancelRefusesAnUnknownBatch() async throws {
        let h = try QueueScriptHarness()
        let message = try await h.refusal(QueueScripts.cancel, ["nope", "10"])
        #expect(message == "NO_BATCH nope")
    }

    @Test func priorityMovesAQueuedJobOneAgingIntervalPerBandAndTellsARunningJobsWorker() async throws {
        let h = try QueueScriptHarness()
        try await h.queuedJob("1", batch: "b", url: "https://a.example/1", score: 200_000_000)
        try await h.activeJob("2", batch: "b", url: "https://a.example/2")
        #expect(try await h.call(QueueScripts.priority, ["", "high", "1", "2"]) == .integer(2))
        #expect(try await h.scores(h.keys.queue) == ["1": Double(200_000_000 - h.agingMs * 1000)])
        #expect(try await h.hash(h.keys.job("1"))["priority"] == "high")
        let control = try await h.events(h.keys.control)
        #expect(control.count == 1 && control.first?["job"] == "2" && control.first?["priority"] == "high", "\(control)")
    }

    @Test func priorityRefusesAnUnknownPriorityOrBatch() async throws {
        let h = try QueueScriptHarness()
        #expect(try await h.refusal(QueueScripts.priority, ["", "urgent", "1"]) == "BAD_PRIORITY urgent")
        #expect(try await h.refusal(QueueScripts.priority, ["nope", "high"]) == "NO_BATCH nope")
    }

    @Test func deadRetryQueuesAFailedJobAgainAndReopensItsBatch() async throws {
        let h = try QueueScriptHarness()
        try await h.batch("b", total: 1)
        try await h.write(h.keys.batch("b"), ["failed": "1", "finishedAt": "5"])
        try await h.job("5", [
            "url": "https://a.example/5", "b:b": "1", "priority": "normal", "destination": "disk", "state": "failed",
            "attempts": "3", "error": "http_500", "message": "boom", "finishedAt": "5", "score": "1",
        ])
        try await h.send(["ZADD", h.keys.dead, "5", "5"])
        #expect(try await h.call(QueueScripts.retryDead, ["10", "5"]) == .integer(1))
        let job = try await h.hash(h.keys.job("5"))
        #expect(job["state"] == "queued" && job["attempts"] == "0" && job["error"] == nil && job["aging"] == "60000", "\(job)")
        #expect(Set(try await h.scores(h.keys.queue).keys) == ["5"])
        #expect(try await h.scores(h.keys.dead).isEmpty)
        let batch = try await h.hash(h.keys.batch("b"))
        #expect(batch["failed"] == "0" && batch["finishedAt"] == nil, "\(batch)")
        #expect(try await h.send(["HGET", h.keys.work, "disk||https://a.example/5"]) == .string("5"))
    }

    @Test func deadRetryWithoutIdsPushesTheOldestDeadDocumentBackOntoItsList() async throws {
        let h = try QueueScriptHarness()
        try await h.job("doc-1", ["id": "doc-1", "kind": "control", "state": "dead", "document": #"{"v":1,"op":"pause"}"#])
        try await h.job("doc-2", ["id": "doc-2", "kind": "document", "state": "dead", "document": "not json"])
        try await h.send(["ZADD", h.keys.dead, "1", "doc-1", "2", "doc-2"])
        #expect(try await h.call(QueueScripts.retryDead, ["1"]) == .integer(1))
        #expect(try await h.send(["LRANGE", h.keys.commands, "0", "-1"]).array.compactMap(\.string) == [#"{"v":1,"op":"pause"}"#])
        #expect(try await h.send(["EXISTS", h.keys.job("doc-1")]).integer == 0)
        #expect(Set(try await h.scores(h.keys.dead).keys) == ["doc-2"])
    }

    @Test func deadPurgeDeletesTheOldestDeadLettersForGood() async throws {
        let h = try QueueScriptHarness()
        for id in ["1", "2", "3"] { try await h.job(id, ["state": "failed"]) }
        try await h.send(["ZADD", h.keys.dead, "1", "1", "2", "2", "3", "3"])
        #expect(try await h.call(QueueScripts.purgeDead, ["2"]) == .integer(2))
        #expect(try await h.scores(h.keys.dead) == ["3": 3])
        #expect(try await h.send(["EXISTS", h.keys.job("1"), h.keys.job("2"), h.keys.job("3")]).integer == 1)
        // By id: a known one is deleted, an unknown one is not counted.
        #expect(try await h.call(QueueScripts.purgeDead, ["0", "3", "9"]) == .integer(1))
    }

    @Test func controlDocumentIsIdleWithNothingToApply() async throws {
        let h = try QueueScriptHarness()
        #expect(try await h.call(QueueScripts.controlDocument, ["100", "100"]).array.compactMap(\.string) == ["idle"])
    }

    @Test func controlDocumentAppliesAPendingDocumentFirstAndPublishesControlApplied() async throws {
        let h = try QueueScriptHarness()
        try await h.send(["RPUSH", h.keys.commands, #"{"v":1,"op":"resume"}"#])
        try await h.send(["RPUSH", h.keys.pendingCommands, #"{"v":1,"op":"pause","id":"hold"}"#])
        let reply = try await h.call(QueueScripts.controlDocument, ["100", "100"]).array
        #expect(reply.first == .string("applied") && reply.last?.fieldDictionary["op"] == "pause", "\(reply)")
        #expect(try await h.send(["HGET", h.keys.config, "paused"]) == .string("1"))
        let event = try #require(try await h.events(h.keys.events).first)
        #expect(event["type"] == "controlApplied" && event["id"] == "hold" && event["batch"] == "", "\(event)")
        #expect(try await h.send(["LLEN", h.keys.commands]).integer == 1)
    }

    @Test func controlDocumentDeadLettersAnInvalidDocumentWithItsReason() async throws {
        let h = try QueueScriptHarness()
        try await h.send(["RPUSH", h.keys.commands, #"{"v":1,"op":"explode","id":"x"}"#])
        let reply = try await h.call(QueueScripts.controlDocument, ["100", "100"]).array.compactMap(\.string)
        #expect(reply.count == 6 && reply[0] == "deadLettered" && reply[2] == "invalid_document" && reply[4] == "x", "\(reply)")
        let dead = try await h.hash(h.keys.job(reply[1]))
        #expect(dead["kind"] == "control" && dead["document"] == #"{"v":1,"op":"explode","id":"x"}"#, "\(dead)")
        let event = try #require(try await h.events(h.keys.events).first)
        #expect(event["type"] == "deadLettered" && event["id"] == "x" && event["op"] == nil, "\(event)")
    }
}
