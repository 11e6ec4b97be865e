import Foundation
@testable import RedisKit
import Testing
@testable import Scheduler

/// submit.lua called directly: a document enqueued at once, a named
/// document accepted once per digest, refusals before any write.
@Suite("Submit script")
struct SubmitScriptTests {
    private static let document = #"{"v":1,"batch":"b","priority":"high","urls":["https://a.example/1","https://a.example/2"]}"#

    @Test func submitEnqueuesTheDocumentsURLsAndRemembersItsDigest() async throws {
        let h = try QueueScriptHarness()
        let reply = try await h.call(QueueScripts.submit, [Self.document, "fallback", "d1"])
        #expect(Self.texts(of: reply) == ["b", "2", "0", "0", "0"], "\(reply)")
        let batch = try await h.hash(h.keys.batch("b"))
        #expect(batch["total"] == "2" && batch["priority"] == "high", "\(batch)")
        #expect(batch["part:d1"] == "1", "\(batch)")
        #expect(Set(try await h.scores(h.keys.queue).keys) == ["1", "2"])
        #expect(try await h.hash(h.keys.job("1"))["url"] == "https://a.example/1")
        #expect(try await h.send(["EXISTS", h.keys.batch("fallback")]).integer == 0)
    }

    @Test func theSameDigestForANamedBatchIsReplayedAndWritesNothing() async throws {
        let h = try QueueScriptHarness()
        _ = try await h.call(QueueScripts.submit, [Self.document, "fallback", "d1"])
        let before = try await h.send(["GET", h.keys.sequence])
        let reply = try await h.call(QueueScripts.submit, [Self.document, "fallback", "d1"])
        #expect(Self.texts(of: reply) == ["b", "0", "1", "0", "0"], "\(reply)")
        #expect(try await h.send(["GET", h.keys.sequence]) == before)
        #expect(try await h.hash(h.keys.batch("b"))["total"] == "2")
        #expect(try await h.scores(h.keys.queue).count == 2)
    }

    @Test func anUnnamedDocumentGoesToTheFallbackBatchEveryTime() async throws {
        let h = try QueueScriptHarness()
        let unnamed = #"{"v":1,"urls":["https://a.example/x"]}"#
        let first = try await h.call(QueueScripts.submit, [unnamed, "f1", "same"])
        let second = try await h.call(QueueScripts.submit, [unnamed, "f2", "same"])
        #expect(first.array.first?.string == "f1" && first.array.last?.integer == 0, "\(first)")
        #expect(second.array.first?.string == "f2" && second.array.last?.integer == 0, "\(second)")
        #expect(try await h.hash(h.keys.batch("f1"))["part:same"] == nil)
        #expect(try await h.hash(h.keys.batch("f2"))["total"] == "1")
    }

    @Test(arguments: [
        ("not json", "MALFORMED_DOCUMENT"),
        (#"{"v":2,"urls":["https://a.example/x"]}"#, "INVALID_DOCUMENT"),
        (#"{"v":1,"urls":[]}"#, "INVALID_DOCUMENT"),
        (#"{"v":1,"batch":"b","total":0,"urls":["https://a.example/x"]}"#, "INVALID_DOCUMENT"),
    ])
    func aRefusedDocumentWritesNothing(document: String, code: String) async throws {
        let h = try QueueScriptHarness()
        let message = try await h.refusal(QueueScripts.submit, [document, "fallback", "d"])
        #expect(message?.hasPrefix(code + " ") == true, "\(message ?? "replied")")
        #expect(try await h.send(["KEYS", h.keys.prefix + "*"]).array.isEmpty)
    }

    @Test func aPartThatWouldPassTheDeclaredTotalIsRefusedAfterTheFirstIsIn() async throws {
        let h = try QueueScriptHarness()
        let first = #"{"v":1,"batch":"p","total":2,"urls":["https://a.example/1"]}"#
        let tooMany = #"{"v":1,"batch":"p","total":2,"urls":["https://a.example/2","https://a.example/3"]}"#
        _ = try await h.call(QueueScripts.submit, [first, "f", "p1"])
        let message = try await h.refusal(QueueScripts.submit, [tooMany, "f", "p2"])
        #expect(message?.hasPrefix("INVALID_DOCUMENT batch \"p\" has total 2") == true, "\(message ?? "replied")")
        let batch = try await h.hash(h.keys.batch("p"))
        #expect(batch["received"] == "1" && batch["part:p2"] == nil, "\(batch)")
    }

    /// The reply's elements as text: strings as they are, integers in decimal.
    private static func texts(of reply: RedisReply) -> [String?] {
        reply.array.map { element in element.string ?? element.integer.map { String($0) } }
    }
}
