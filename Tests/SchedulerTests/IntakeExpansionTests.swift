import Testing
@testable import Scheduler

/// The one-command producer contract: `RPUSH warmer:{Q}:intake '<json>'`.
@Suite("Intake expansion")
struct IntakeExpansionTests {
    private let worker = "test-worker"

    private func push(_ document: String, to queue: JobQueue) async throws {
        try await queue.client.send(["RPUSH", queue.keys.intake, document])
    }

    @Test func aPushedDocumentBecomesABatchOfJobs() async throws {
        // Given a document pushed with a plain RPUSH
        let queue = try makeQueue()
        try await push(#"{"v":1,"batch":"from-python","urls":["https://images.example/a.jpg","https://images.example/b.jpg"],"priority":"high","destination":"processed","processing":"thumbnail=64"}"#, to: queue)
        // When a worker claims
        let jobs = try await queue.claim(upTo: 10, worker: worker)
        // Then the document's jobs come out, as specified
        #expect(jobs.map(\.url) == ["https://images.example/a.jpg", "https://images.example/b.jpg"])
        #expect(jobs.allSatisfy { $0.batches == ["from-python"] && $0.priority == "high" && $0.destination == "processed" && $0.processing == "thumbnail=64" })
        #expect(try await queue.status(ofBatch: "from-python").total == 2)
    }

    @Test func anIdleWorkerWakesForADocumentAndTheDocumentNeverLeavesRedis() async throws {
        // Given an idle worker waiting on the queue
        let queue = try makeQueue()
        let waiter = try await startIdleWait(on: queue)
        // When a producer pushes a document
        try await push(#"{"v":1,"batch":"wake","urls":["https://images.example/a.jpg"]}"#, to: queue)
        // Then the worker wakes, and the document waits in intake:pending (not in the worker's memory)…
        #expect(try await waiter.value)
        #expect(try await queue.client.send(["LLEN", queue.keys.pendingIntake]).integer == 1)
        // …until the next claim, by any worker, expands it
        #expect(try await queue.claim(upTo: 1, worker: "any").count == 1)
        #expect(try await queue.client.send(["LLEN", queue.keys.pendingIntake]).integer == 0)
    }

    @Test func partsOfOneBatchShareTheirDeclaredTotal() async throws {
        let queue = try makeQueue()
        try await push(#"{"v":1,"batch":"parts","total":3,"urls":["https://images.example/1.jpg","https://images.example/2.jpg"]}"#, to: queue)
        let first = try await queue.claim(upTo: 10, worker: worker)
        for job in first { try await queue.finish(job, outcome: .completed(source: "network", bytes: 1), worker: worker) }
        // The batch is not finished after the first part…
        #expect(try await queue.status(ofBatch: "parts").isFinished == false)
        try await push(#"{"v":1,"batch":"parts","total":3,"urls":["https://images.example/3.jpg"]}"#, to: queue)
        let second = try await queue.claim(upTo: 10, worker: worker)
        for job in second { try await queue.finish(job, outcome: .completed(source: "network", bytes: 1), worker: worker) }
        // …only after the last
        let status = try await queue.status(ofBatch: "parts")
        #expect(status.total == 3 && status.completed == 3 && status.isFinished)
    }

    @Test(arguments: [
        ("{not json", "malformed_document"),
        (#"{"v":1,"batch":"x"}"#, "invalid_document"),
        (#"{"v":2,"urls":["https://images.example/a.jpg"]}"#, "invalid_document"),
        (#"{"v":1,"urls":["https://images.example/a.jpg"],"priority":"urgent"}"#, "invalid_document"),
        (#"{"v":1,"urls":[42]}"#, "invalid_document"),
        (#"{"v":1,"batch":"has space","urls":["https://images.example/a.jpg"]}"#, "invalid_document"),
        (#"[1,2]"#, "invalid_document"),
        (#"{"v":"1","urls":["https://images.example/a.jpg"]}"#, "invalid_document"),
        (#"{"v":1,"urls":["https://images.example/a.jpg"],"processing":"thumbnail=64"}"#, "invalid_document"),
        (#"{"v":1,"urls":["https://images.example/a.jpg"],"destination":"disk","processing":""}"#, "invalid_document"),
    ])
    func badDocumentsAreDeadLetteredWithTheirReason(document: String, code: String) async throws {
        let queue = try makeQueue()
        try await push(document, to: queue)
        // When a worker claims
        #expect(try await queue.claim(upTo: 1, worker: worker).isEmpty)
        // Then the document is in the dead-letter set with its reason, and an event says so
        let dead = try #require(try await queue.deadLetters().first)
        #expect(dead.isDocument && dead.error == code && dead.fields["document"] == document)
        #expect(dead.message?.isEmpty == false)
        // (read raw, as any client would: the documented fields and no others)
        let raw = try await queue.client.send(["XRANGE", queue.keys.events, "-", "+"]).array
        #expect(raw.count == 1)
        let event = try #require(raw.first?.array.last?.fieldDictionary)
        #expect(event["type"] == "deadLettered" && event["error"] == code && event["job"] == dead.id)
        // (`batch` only when the document named a valid one)
        let named: Set<String> = document.contains(#""batch":"x""#) ? ["batch"] : []
        #expect(Set(event.keys) == Set(["v", "type", "job", "ts", "error", "message"]).union(named), "\(event)")
    }

    @Test func aRetriedDocumentIsPushedAgain() async throws {
        let queue = try makeQueue()
        try await push("{oops", to: queue)
        _ = try await queue.claim(upTo: 1, worker: worker)
        #expect(try await queue.retryDeadLetters() == 1)
        #expect(try await queue.client.send(["LRANGE", queue.keys.intake, "0", "-1"]).array.compactMap(\.string).contains("{oops"))
    }
}
