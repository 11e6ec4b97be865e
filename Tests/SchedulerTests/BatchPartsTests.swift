import Testing
@testable import Scheduler

/// A batch sent as several intake documents with a declared `total`: the
/// parts' rules (docs/wire-format.md, "Producing"), read back as a client in
/// any language would, with HGETALL and XRANGE.
@Suite("Batch parts")
struct BatchPartsTests {
    private let worker = "test-worker"

    private func push(_ document: String, to queue: JobQueue) async throws {
        try await queue.client.send(["RPUSH", queue.keys.intake, document])
    }

    private func part(_ batch: String, total: Int?, _ urls: [String]) -> String {
        let list = urls.map { "\"\($0)\"" }.joined(separator: ",")
        return "{\"v\":1,\"batch\":\"\(batch)\"" + (total.map { ",\"total\":\($0)" } ?? "") + ",\"urls\":[\(list)]}"
    }

    /// Claims and completes every job there is; returns how many.
    @discardableResult
    private func completeEverything(in queue: JobQueue) async throws -> Int {
        var done = 0
        while true {
            let jobs = try await queue.claim(upTo: 10, worker: worker)
            if jobs.isEmpty { return done }
            for job in jobs { try await queue.finish(job, outcome: .completed(source: "network", bytes: 1), worker: worker) }
            done += jobs.count
        }
    }

    private func batchHash(_ batch: String, in queue: JobQueue) async throws -> [String: String] {
        try await queue.client.send(["HGETALL", queue.keys.prefix + "batch:" + batch]).fieldDictionary
    }

    /// The batch stream's entries as field dictionaries, oldest first.
    private func batchEvents(_ batch: String, in queue: JobQueue) async throws -> [[String: String]] {
        try await entries(of: queue.keys.prefix + "batch:" + batch + ":events", in: queue)
    }

    private func entries(of stream: String, in queue: JobQueue) async throws -> [[String: String]] {
        try await queue.client.send(["XRANGE", stream, "-", "+"]).array.compactMap { entry in
            entry.array.last?.fieldDictionary
        }
    }

    @Test func aPartThatWouldExceedTheDeclaredTotalIsDeadLetteredAndTheCountersNeverPassIt() async throws {
        // Given two parts of three URLs, both declaring a total of 4
        let queue = try makeQueue()
        try await push(part("four", total: 4, urls(3, "a")), to: queue)
        try await push(part("four", total: 4, urls(3, "b")), to: queue)

        // When a worker does all the work there is
        #expect(try await completeEverything(in: queue) == 3)

        // Then the second part was dead-lettered with a reason naming the batch…
        let dead = try #require(try await queue.deadLetters().first)
        #expect(dead.isDocument && dead.error == "invalid_document")
        #expect(dead.message?.contains("\"four\"") == true && dead.message?.contains("total 4") == true, "\(dead)")
        // …the batch is 3 of 4, unfinished, with no batchCompleted
        var hash = try await batchHash("four", in: queue)
        #expect(hash["total"] == "4" && hash["completed"] == "3" && hash["finishedAt"] == nil, "\(hash)")
        // …and its observers saw the refused part in the batch's stream
        let refused = try await batchEvents("four", in: queue).filter { $0["type"] == "deadLettered" }
        #expect(refused.count == 1 && refused.first?["batch"] == "four" && refused.first?["error"] == "invalid_document")

        // When the last URL comes in a part that fits
        try await push(part("four", total: 4, ["https://images.example/last.jpg"]), to: queue)
        try await completeEverything(in: queue)

        // Then the batch finished exactly once, at 4 of 4
        hash = try await batchHash("four", in: queue)
        #expect(hash["total"] == "4" && hash["completed"] == "4" && hash["finishedAt"] != nil, "\(hash)")
        let completions = try await batchEvents("four", in: queue).filter { $0["type"] == "batchCompleted" }
        #expect(completions.count == 1 && completions.first?["completed"] == "4")
    }

    @Test func aPartDeclaringAnotherTotalIsDeadLetteredWithBothTotals() async throws {
        let queue = try makeQueue()
        try await push(part("mixed", total: 3, urls(1, "a")), to: queue)
        try await push(part("mixed", total: 10, urls(1, "b")), to: queue)

        #expect(try await completeEverything(in: queue) == 1)

        let dead = try #require(try await queue.deadLetters().first)
        #expect(dead.error == "invalid_document")
        #expect(dead.message?.contains("total 3") == true && dead.message?.contains("10") == true, "\(dead)")
        #expect(try await batchHash("mixed", in: queue)["total"] == "3")
    }

    @Test func aPartWithoutTheTotalIsRefusedWhileTheDeclaredPartsAreStillComingIn() async throws {
        let queue = try makeQueue()
        try await push(part("open", total: 3, urls(2, "a")), to: queue)
        try await push(part("open", total: nil, urls(1, "b")), to: queue)

        #expect(try await completeEverything(in: queue) == 2)

        let dead = try #require(try await queue.deadLetters().first)
        #expect(dead.error == "invalid_document" && dead.message?.contains("\"open\"") == true, "\(dead)")
        #expect(try await batchHash("open", in: queue)["total"] == "3")
    }

    @Test func aPartWithATotalForABatchSentWithoutOneIsRefused() async throws {
        let queue = try makeQueue()
        try await push(part("plain", total: nil, urls(2, "a")), to: queue)
        try await push(part("plain", total: 5, urls(1, "b")), to: queue)

        #expect(try await completeEverything(in: queue) == 2)

        let dead = try #require(try await queue.deadLetters().first)
        #expect(dead.error == "invalid_document" && dead.message?.contains("\"plain\"") == true, "\(dead)")
        let hash = try await batchHash("plain", in: queue)
        #expect(hash["total"] == "2" && hash["completed"] == "2")
    }

    @Test func appendingToAFinishedBatchReopensItAndItCompletesAgainWithTheNewCounters() async throws {
        // Given a finished batch
        let queue = try makeQueue()
        try await push(part("again", total: nil, urls(2, "a")), to: queue)
        try await completeEverything(in: queue)
        #expect(try await batchHash("again", in: queue)["finishedAt"] != nil)

        // When a document appends to it
        try await push(part("again", total: nil, urls(1, "b")), to: queue)
        let appended = try await queue.claim(upTo: 10, worker: worker) // expands the document first
        let reopened = try await batchHash("again", in: queue)
        #expect(reopened["finishedAt"] == nil && reopened["total"] == "3", "\(reopened)")
        for job in appended { try await queue.finish(job, outcome: .completed(source: "network", bytes: 1), worker: worker) }

        // Then one batchCompleted per completion, each with its counters
        let events = try await batchEvents("again", in: queue)
        let completions = events.filter { $0["type"] == "batchCompleted" }
        #expect(completions.map { $0["completed"] } == ["2", "3"], "\(events)")
        #expect(completions.map { $0["total"] } == ["2", "3"])
    }
}
