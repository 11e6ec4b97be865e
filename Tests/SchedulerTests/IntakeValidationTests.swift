import Testing
@testable import Scheduler

/// An intake document is validated before anything of it is written: its
/// numbers (`total`, `timeout`) must be integers in their documented ranges.
/// A document that fails is dead-lettered — never half expanded, never lost.
@Suite("Intake validation")
struct IntakeValidationTests {
    private let worker = "test-worker"
    private static let url = #"["https://images.example/a.jpg"]"#

    private func push(_ document: String, to queue: JobQueue) async throws {
        try await queue.client.send(["RPUSH", queue.keys.intake, document])
    }

    /// Keys of the queue other than those a dead-lettered document leaves
    /// (its `doc-N` hash, the dead-letter set, the event stream, the id
    /// sequence) and the intake list's wake-up marker.
    private func leftovers(of queue: JobQueue) async throws -> [String] {
        let keys = try await queue.client.send(["KEYS", queue.keys.prefix + "*"]).array.compactMap(\.string)
        let expected: Set<String> = ["dead", "events", "seq", "intake"]
        return keys.map { String($0.dropFirst(queue.keys.prefix.count)) }
            .filter { !expected.contains($0) && !$0.hasPrefix("job:doc-") }
            .sorted()
    }

    @Test(arguments: [
        // Out of range: each of these once left a batch with `declaredTotal`
        // and `total 0`, and no dead letter, no event.
        (#"{"v":1,"batch":"n1","total":1e20,"urls":\#(url)}"#, "invalid_document"),
        (#"{"v":1,"batch":"n2","total":1e308,"urls":\#(url)}"#, "invalid_document"),
        (#"{"v":1,"batch":"n3","total":9007199254740992,"urls":\#(url)}"#, "invalid_document"),
        (#"{"v":1,"batch":"n4","total":-1,"urls":\#(url)}"#, "invalid_document"),
        (#"{"v":1,"batch":"n5","total":0,"urls":\#(url)}"#, "invalid_document"),
        (#"{"v":1,"batch":"n6","total":2.5,"urls":\#(url)}"#, "invalid_document"),
        (#"{"v":1,"batch":"n7","total":"3","urls":\#(url)}"#, "invalid_document"),
        // Not JSON numbers at all (Redis's cjson accepts them by default).
        (#"{"v":1,"batch":"n8","total":Infinity,"urls":\#(url)}"#, "malformed_document"),
        (#"{"v":1,"batch":"n9","total":-Infinity,"urls":\#(url)}"#, "malformed_document"),
        (#"{"v":1,"batch":"n10","total":NaN,"urls":\#(url)}"#, "malformed_document"),
        (#"{"v":1,"batch":"n11","total":0x10,"urls":\#(url)}"#, "malformed_document"),
        (#"{"v":1,"batch":"n12","timeout":0x10,"urls":\#(url)}"#, "malformed_document"),
        // The per-document job timeout, in seconds: 1…86,400.
        (#"{"v":1,"batch":"t1","timeout":0,"urls":\#(url)}"#, "invalid_document"),
        (#"{"v":1,"batch":"t2","timeout":-5,"urls":\#(url)}"#, "invalid_document"),
        (#"{"v":1,"batch":"t3","timeout":86401,"urls":\#(url)}"#, "invalid_document"),
        (#"{"v":1,"batch":"t4","timeout":1e20,"urls":\#(url)}"#, "invalid_document"),
        (#"{"v":1,"batch":"t5","timeout":1.5,"urls":\#(url)}"#, "invalid_document"),
        (#"{"v":1,"batch":"t6","timeout":"30","urls":\#(url)}"#, "invalid_document"),
    ])
    func aDocumentWithABadNumberIsDeadLetteredAndLeavesNothingElse(document: String, code: String) async throws {
        let queue = try makeQueue()
        try await push(document, to: queue)
        // When a worker claims
        #expect(try await queue.claim(upTo: 1, worker: worker).isEmpty)
        // Then the document is dead-lettered with its reason and an event…
        let dead = try #require(try await queue.deadLetters().first)
        #expect(dead.isDocument && dead.error == code && dead.fields["document"] == document)
        #expect(dead.message?.isEmpty == false)
        let events = try await EventStream(queue: queue).read(after: .beginning, timeout: .milliseconds(50), using: makeClient())
        #expect(events.map(\.kind) == [.deadLettered] && events.first?.fields["error"] == code)
        // …and nothing of it was written: no batch, no job, no index entry
        #expect(try await leftovers(of: queue) == [])
        #expect(try await queue.client.send(["LRANGE", queue.keys.intake, "0", "-1"]).array.compactMap(\.string).allSatisfy { $0 == "wake" })
    }

    @Test func aBadDocumentTakenByTheFinishScriptIsDeadLetteredAndTheJobStillFinishes() async throws {
        // Given a running job, and a bad document pushed while it runs
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1), batchID: "running")
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        try await push(#"{"v":1,"batch":"huge","total":1e20,"urls":\#(Self.url)}"#, to: queue)
        // When the worker finishes the job (the finish script expands the next document)
        try await queue.finish(job, outcome: .completed(source: "network", bytes: 1), worker: worker, claimingNext: 1)
        // Then the job is counted, and the document dead-lettered, with no batch made of it
        #expect(try await queue.status(ofBatch: "running").completed == 1)
        #expect(try await queue.deadLetters().first?.error == "invalid_document")
        #expect(try await queue.client.send(["EXISTS", queue.keys.prefix + "batch:huge"]).integer == 0)
    }

    @Test func aDocumentWhoseExpansionFailsIsDeadLetteredNotLost() async throws {
        // Given a document for a batch whose key something else overwrote with a string
        let queue = try makeQueue()
        try await queue.client.send(["SET", queue.keys.prefix + "batch:clobbered", "not a hash"])
        let document = #"{"v":1,"batch":"clobbered","urls":\#(Self.url)}"#
        try await push(document, to: queue)
        // When a worker claims, the claim itself succeeds…
        #expect(try await queue.claim(upTo: 1, worker: worker).isEmpty)
        // …and the document, which left the intake list, waits in the dead-letter set with Redis's reason
        let dead = try #require(try await queue.deadLetters().first)
        #expect(dead.isDocument && dead.error == "invalid_document" && dead.fields["document"] == document)
        #expect(dead.message?.contains("WRONGTYPE") == true)
        #expect(try await queue.client.send(["LLEN", queue.keys.intake]).integer == 0)
    }

    @Test(arguments: [
        ["b", "urgent", "disk", "", "1", "", "", ""],
        ["b", "normal", "tape", "", "1", "", "", ""],
        ["b", "normal", "disk", "", "1e20", "", "", ""],
        ["b", "normal", "disk", "", "1", "0", "", ""],
        ["b", "normal", "disk", "", "1", "Infinity", "", ""],
        ["b", "normal", "disk", "", "1", "", "", "Infinity"],
    ])
    func theEnqueueScriptRefusesBadArgumentsBeforeWriting(header: [String]) async throws {
        // Given the enqueue script called directly with arguments `JobQueue.enqueue` never sends
        let queue = try makeQueue()
        // Then it refuses them, and nothing was written
        await #expect(throws: SchedulerError.self) { try await queue.run(QueueScripts.enqueue, header + ["https://images.example/a.jpg"]) }
        #expect(try await queue.client.send(["KEYS", queue.keys.prefix + "*"]).array.isEmpty)
    }

    @Test func theLargestTotalAndTheTimeoutLimitsAreAccepted() async throws {
        // Given documents at the top of each documented range
        let queue = try makeQueue()
        try await push(#"{"v":1,"batch":"big","total":9007199254740991,"urls":\#(Self.url)}"#, to: queue)
        try await push(#"{"v":1,"batch":"day","timeout":86400,"urls":["https://images.example/day.jpg"]}"#, to: queue)
        try await push(#"{"v":1,"batch":"second","timeout":1,"urls":["https://images.example/second.jpg"]}"#, to: queue)
        // When a worker claims them one by one (one document per claim)
        var jobs: [Job] = []
        for _ in 0..<3 { jobs += try await queue.claim(upTo: 1, worker: worker) }
        // Then each became a job, with its exact total and its timeout
        #expect(try await queue.deadLetters().isEmpty)
        #expect(try await queue.status(ofBatch: "big").total == 9_007_199_254_740_991)
        #expect(jobs.map(\.timeout) == [nil, .seconds(86400), .seconds(1)])
    }

    @Test func anEnqueuedJobCarriesItsTimeout() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1), timeout: .seconds(45))
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        #expect(job.timeout == .seconds(45))
    }
}
