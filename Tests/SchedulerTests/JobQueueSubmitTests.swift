import Foundation
import Testing
@testable import Scheduler

/// `JobQueue.submit`: an intake document sent over HTTP is refused with the
/// very code and message the intake list dead-letters it with, a named
/// document sent again enqueues nothing, parts are each accepted once.
@Suite("JobQueue submit")
struct JobQueueSubmitTests {
    private let worker = "test-worker"
    private static let url = #"["https://images.example/a.jpg"]"#
    private static let tooMany = "[" + (0...10_000).map { #""https://images.example/\#($0).jpg""# }.joined(separator: ",") + "]"

    /// Documents the intake list refuses, one per rule; each after the
    /// documents before it (`setup`) were accepted.
    static let refused: [(setup: [String], document: String)] = [
        ([], "not json"),
        ([], #"{"v":1,"batch":"x","total":0x10,"urls":\#(url)}"#),
        ([], #"{"v":1,"batch":"x","total":NaN,"urls":\#(url)}"#),
        ([], #"[1,2]"#),
        ([], #""a string""#),
        ([], #"{"urls":\#(url)}"#),
        ([], #"{"v":"1","urls":\#(url)}"#),
        ([], #"{"v":1}"#),
        ([], #"{"v":1,"urls":[]}"#),
        ([], #"{"v":1,"urls":"https://images.example/a.jpg"}"#),
        ([], #"{"v":1,"urls":\#(tooMany)}"#),
        ([], #"{"v":1,"urls":["https://images.example/a.jpg",""]}"#),
        ([], #"{"v":1,"urls":[7]}"#),
        ([], #"{"v":1,"batch":"a b","urls":\#(url)}"#),
        ([], #"{"v":1,"batch":"","urls":\#(url)}"#),
        ([], #"{"v":1,"batch":7,"urls":\#(url)}"#),
        ([], #"{"v":1,"priority":"urgent","urls":\#(url)}"#),
        ([], #"{"v":1,"destination":"tape","urls":\#(url)}"#),
        ([], #"{"v":1,"destination":"processed","processing":7,"urls":\#(url)}"#),
        ([], #"{"v":1,"processing":"resize(w:10)","urls":\#(url)}"#),
        ([], #"{"v":1,"total":1e20,"urls":\#(url)}"#),
        ([], #"{"v":1,"total":2.5,"urls":\#(url)}"#),
        ([], #"{"v":1,"total":"3","urls":\#(url)}"#),
        ([], #"{"v":1,"urls":["https://images.example/a.jpg","https://images.example/b.jpg"],"total":1}"#),
        ([], #"{"v":1,"timeout":0,"urls":\#(url)}"#),
        ([], #"{"v":1,"timeout":86401,"urls":\#(url)}"#),
        ([], #"{"v":1,"timeout":1.5,"urls":\#(url)}"#),
        // The rules of parts: they need the batch as the parts before left it.
        ([#"{"v":1,"batch":"p","total":3,"urls":["https://images.example/1.jpg"]}"#],
         #"{"v":1,"batch":"p","urls":["https://images.example/2.jpg"]}"#),
        ([#"{"v":1,"batch":"p","total":3,"urls":["https://images.example/1.jpg"]}"#],
         #"{"v":1,"batch":"p","total":4,"urls":["https://images.example/2.jpg"]}"#),
        ([#"{"v":1,"batch":"p","total":2,"urls":["https://images.example/1.jpg"]}"#],
         #"{"v":1,"batch":"p","total":2,"urls":["https://images.example/2.jpg","https://images.example/3.jpg"]}"#),
        ([#"{"v":1,"batch":"p","urls":["https://images.example/1.jpg"]}"#],
         #"{"v":1,"batch":"p","total":3,"urls":["https://images.example/2.jpg"]}"#),
    ]

    /// The code and message the intake list dead-letters `document` with,
    /// after `setup` went through the list.
    private func intakeRefusal(of document: String, after setup: [String]) async throws -> (String?, String?) {
        let queue = try makeQueue()
        for step in setup + [document] {
            try await queue.client.send(["RPUSH", queue.keys.intake, step])
            _ = try await queue.claim(upTo: 1, worker: worker)
        }
        let dead = try await queue.deadLetters()
        #expect(dead.count == 1, "\(dead)")
        return (dead.first?.error, dead.first?.message)
    }

    @Test(arguments: 0..<refused.count)
    func aDocumentIsRefusedWithTheIntakeListsCodeAndMessage(index: Int) async throws {
        let (setup, document) = Self.refused[index]
        let (code, message) = try await intakeRefusal(of: document, after: setup)
        let queue = try makeQueue()
        for step in setup { _ = try await queue.submit(document: Array(step.utf8)) }
        let keysBefore = try await queue.client.send(["KEYS", queue.keys.prefix + "*"]).array.count
        do {
            let submission = try await queue.submit(document: Array(document.utf8))
            Issue.record("accepted: \(submission)")
        } catch .invalidDocument(let refusedCode, let refusedMessage) {
            #expect(refusedCode == code && refusedMessage == message, "intake: \(code ?? "-") \(message ?? "-")")
        }
        // Refused before anything was written: no dead letter either.
        #expect(try await queue.client.send(["KEYS", queue.keys.prefix + "*"]).array.count == keysBefore)
        #expect(try await queue.deadLetterCount() == 0)
    }

    @Test func theSameNamedDocumentSentAgainIsReplayedAndEnqueuesNothing() async throws {
        let queue = try makeQueue()
        let document = Array(#"{"v":1,"batch":"again","urls":["https://images.example/1.jpg","https://images.example/2.jpg"]}"#.utf8)
        let first = try await queue.submit(document: document)
        #expect(first == JobQueue.Submission(batch: "again", newJobs: 2, replayed: false, staged: 0, recent: 0))
        let second = try await queue.submit(document: document)
        #expect(second == JobQueue.Submission(batch: "again", newJobs: 0, replayed: true, staged: 0, recent: 0))
        let status = try await queue.status(ofBatch: "again")
        #expect(status.total == 2)
        #expect(try await queue.queuedCount() == 2)
    }

    @Test func partsWithATotalAreEachAcceptedOnceAndCompleteTheBatch() async throws {
        let queue = try makeQueue()
        let parts = (0..<3).map { Array(#"{"v":1,"batch":"parts","total":3,"urls":["https://images.example/p\#($0).jpg"]}"#.utf8) }
        for part in parts {
            #expect(try await queue.submit(document: part) == .init(batch: "parts", newJobs: 1, replayed: false, staged: 0, recent: 0))
        }
        for part in parts {
            #expect(try await queue.submit(document: part) == .init(batch: "parts", newJobs: 0, replayed: true, staged: 0, recent: 0))
        }
        #expect(try await queue.status(ofBatch: "parts").total == 3)
        #expect(try await queue.queuedCount() == 3)
    }

    @Test func anUnnamedDocumentGetsTheFallbackIdAndIsNeverReplayed() async throws {
        let queue = try makeQueue()
        let document = Array(#"{"v":1,"urls":["https://images.example/u.jpg"]}"#.utf8)
        let first = try await queue.submit(document: document, fallbackBatch: "given-id")
        #expect(first == .init(batch: "given-id", newJobs: 1, replayed: false, staged: 0, recent: 0))
        let second = try await queue.submit(document: document)
        #expect(second.batch != "given-id" && JobQueue.isValidBatchID(second.batch) && !second.replayed)
        // The URL joined the queued job: no new job, but the batch counts it.
        #expect(second.newJobs == 0)
        #expect(try await queue.status(ofBatch: second.batch).total == 1)
    }
}
