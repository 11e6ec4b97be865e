import Foundation
import Testing
@testable import Scheduler

/// Control documents applied step by step against the test Redis: large
/// batches and "all" in several atomic steps counted once, the validation
/// rules, and a step Redis refuses.
@Suite("Control document steps")
struct ControlDocumentStepTests {
    private let worker = "test-worker"

    /// Pushes `document` onto the queue's commands list, as any client would.
    private func push(_ document: String, to queue: JobQueue) async throws {
        _ = try await queue.client.send(["RPUSH", queue.keys.commands, document])
    }

    /// Applies steps until the next document is done; returns its outcome and how many steps it took.
    private func applyNext(
        _ queue: JobQueue, chunks: JobQueue.ControlDocumentChunks = JobQueue.ControlDocumentChunks()
    ) async throws -> (step: ControlDocumentStep, steps: Int) {
        var steps = 0
        while true {
            let step = try await queue.applyControlDocumentStep(chunks: chunks)
            steps += 1
            if case .inProgress = step { continue }
            return (step, steps)
        }
    }

    @Test func theOutcomeIsAnEventSwiftClientsReadAsControlApplied() async throws {
        let queue = try makeQueue()
        try await push(#"{"v":1,"op":"pause","id":"hold"}"#, to: queue)
        _ = try await applyNext(queue, chunks: JobQueue.ControlDocumentChunks())
        let events = try await EventStream(queue: queue).read(after: .beginning, timeout: .milliseconds(50), using: makeClient())
        let applied = try #require(events.first { $0.kind == .controlApplied }, "\(events)")
        #expect(applied.fields["op"] == "pause" && applied.fields["id"] == "hold", "\(applied.fields)")
    }

    @Test func aStepWithNothingToApplyIsIdle() async throws {
        let queue = try makeQueue()
        #expect(try await queue.applyControlDocumentStep() == .idle)
    }

    @Test func aLargeBatchsPriorityIsChangedInStepsAndEachJobCountedOnce() async throws {
        // Given a low batch of 1,000 jobs (more than Redis keeps as a compact
        // set, which SSCAN returns whole) and a normal one after it
        let queue = try makeQueue()
        let low = try await queue.enqueue(urls: urls(1_000, "low"), priority: .low)
        _ = try await queue.enqueue(urls: urls(5, "normal"), priority: .normal)
        // When a document raises the low batch, about 100 jobs per step
        try await push(#"{"v":1,"op":"priority","batch":"\#(low)","priority":"veryHigh","id":"raise"}"#, to: queue)
        var chunks = JobQueue.ControlDocumentChunks()
        chunks.batchJobs = 100
        let (step, steps) = try await applyNext(queue, chunks: chunks)
        // Then it took several steps, and its outcome counts the 1,000 jobs once
        guard case .applied(let fields) = step else { Issue.record("\(step)"); return }
        #expect(steps > 1, "one step only: the test does not cover steps")
        #expect(fields["updated"] == "1000" && fields["id"] == "raise" && fields["batch"] == low, "\(fields)")
        #expect(try await queue.client.send(["EXISTS", queue.keys.applyingCommand]).integer == 0)
        // …and the 1,000 are claimed first
        let claimed = try await queue.claim(upTo: 1_005, worker: worker)
        #expect(claimed.prefix(1_000).allSatisfy { $0.priority == "veryHigh" } && claimed.count == 1_005)
    }

    @Test func retryingAllDeadLettersInStepsTakesEachOnce() async throws {
        // Given 25 dead letters
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(25))
        for job in try await queue.claim(upTo: 25, worker: worker) {
            try await queue.finish(job, outcome: .failed(code: "http_404", message: "gone"), worker: worker)
        }
        #expect(try await queue.deadLetterCount() == 25)
        // When all are retried, ten per step
        try await push(#"{"v":1,"op":"deadRetry","all":true,"id":"again"}"#, to: queue)
        var chunks = JobQueue.ControlDocumentChunks()
        chunks.deadLetters = 10
        let (step, steps) = try await applyNext(queue, chunks: chunks)
        // Then the outcome counts 25 over three steps, and each job is queued once
        guard case .applied(let fields) = step else { Issue.record("\(step)"); return }
        #expect(steps == 3 && fields["retried"] == "25" && fields["notFound"] == "", "\(steps) \(fields)")
        #expect(try await queue.deadLetterCount() == 0)
        #expect(try await queue.client.send(["ZCARD", queue.keys.queue]).integer == 25)
    }

    @Test func documentsBreakingTheRulesAreDeadLetteredWithTheirReasons() async throws {
        let queue = try makeQueue()
        let tooMany = (0...1_000).map { "\"\($0 + 1)\"" }.joined(separator: ",")
        let cases: [(document: String, code: String, reason: String)] = [
            ("[1,2]", "invalid_document", #""v""#),
            (#"{"v":2,"op":"pause"}"#, "invalid_document", #""v""#),
            (#"{"v":1,"op":"pause","id":"has space"}"#, "invalid_document", #""id""#),
            (#"{"v":1,"op":"cancel","jobs":[]}"#, "invalid_document", #""jobs""#),
            (#"{"v":1,"op":"cancel","jobs":[12]}"#, "invalid_document", "jobs[0]"),
            (#"{"v":1,"op":"cancel","jobs":[\#(tooMany)]}"#, "invalid_document", "more than 1000"),
            (#"{"v":1,"op":"cancel","batch":null}"#, "invalid_document", #""batch""#),
            (#"{"v":1,"op":"priority","jobs":["1"]}"#, "invalid_document", #""priority""#),
            (#"{"v":1,"op":"deadRetry","all":"yes"}"#, "invalid_document", #""all""#),
            (#"{"v":1,"op":"deadRetry","all":true,"ids":["1"]}"#, "invalid_document", "not both"),
            (#"{"v":1,"op":"deadPurge","all":false}"#, "invalid_document", #""ids""#),
            (#"{"v":1,"op":"pause","x":0x10}"#, "malformed_document", "not JSON"),
        ]
        for entry in cases {
            try await push(entry.document, to: queue)
            let step = try await queue.applyControlDocumentStep()
            guard case .deadLettered(let id, let code, let message, _, _) = step else {
                Issue.record("\(entry.document): \(step)")
                continue
            }
            #expect(code == entry.code && message.contains(entry.reason), "\(entry.document): \(code) \(message)")
            let letter = try #require(try await queue.deadLetters().first { $0.id == id })
            #expect(letter.isControlDocument && letter.isDocument && letter.fields["document"] == entry.document)
        }
        #expect(try await queue.statistics().isPaused == false)
        // A number that is an integer is the number 1 however written
        try await push(#"{"v":1.0,"op":"pause"}"#, to: queue)
        guard case .applied = try await queue.applyControlDocumentStep() else { Issue.record("v 1.0 refused"); return }
        #expect(try await queue.statistics().isPaused)
    }

    @Test func aDocumentWhoseStepRedisRefusesIsDeadLetteredWithTheErrorAndNoLongerInProgress() async throws {
        // Given a batch whose job set was overwritten with a string by hand
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(2))
        _ = try await queue.client.send(["SET", queue.keys.batchJobs(batch), "oops"])
        // When it is cancelled by a document
        try await push(#"{"v":1,"op":"cancel","batch":"\#(batch)","id":"doomed"}"#, to: queue)
        let step = try await queue.applyControlDocumentStep()
        // Then the document is dead-lettered with Redis's error, and the next one is taken
        guard case .deadLettered(_, let code, let message, let id, let operation) = step else { Issue.record("\(step)"); return }
        #expect(code == "invalid_document" && message.contains("WRONGTYPE") && id == "doomed" && operation == "cancel",
                "\(message)")
        #expect(try await queue.client.send(["EXISTS", queue.keys.applyingCommand]).integer == 0)
        try await push(#"{"v":1,"op":"pause"}"#, to: queue)
        guard case .applied = try await queue.applyControlDocumentStep() else { Issue.record("not applied"); return }
    }
}
