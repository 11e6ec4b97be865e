import RedisKit
import Testing
@testable import Scheduler

/// Issue 24, item 5: a large intake document is never decoded in Redis when
/// the claiming client parses documents itself (parsing.lua): the claim
/// parks it, the client pushes its URLs in bounded calls and one last call
/// stages it. Here the parser is a stand-in (Foundation's JSON, with the
/// fields passed through): the rules themselves are `IntakeDocument`'s,
/// compared with Redis's by IntakeDocumentDifferentialTests; real workers
/// killed at each step are LargeDocumentCrashTests'.
@Suite("Large document parsing")
struct LargeDocumentParsingTests {
    /// A document of `count` URLs (about 40 bytes each: 1,000 make 40 KB, over the 32 KiB threshold).
    private static func document(_ count: Int, batch: String, extra: String = "") -> String {
        let urls = (0..<count).map { #""https://images.example/\#(batch)/\#($0).jpg""# }.joined(separator: ",")
        return #"{"v":1,"batch":"\#(batch)"\#(extra),"urls":[\#(urls)]}"#
    }

    private static func parsingKeys(_ queue: JobQueue) -> (slot: String, urls: String) {
        (queue.keys.prefix + "intake:parsing", queue.keys.prefix + "intake:parsing:urls")
    }

    @Test func theClaimThatTakesALargeDocumentLeavesItToItsParserWhichStagesItInBoundedPushes() async throws {
        // Given a paused queue whose client parses documents, and a 2,000-URL document (80 KB)
        let record = StandInIntakeParser()
        let queue = try makeQueue { $0.intakeParser = record.parser() }
        try await queue.pause()
        try await queue.client.send(["RPUSH", queue.keys.intake, Self.document(2000, batch: "big")])

        // When one claim runs
        _ = try await queue.claim(upTo: 1, worker: "w")

        // Then the client parsed it once and pushed its URLs 300 a call, and it is staged whole, counted in its batch
        #expect(record.parsed.withLock { $0 } == 1)
        let pushes = stride(from: 300, through: 2000, by: 300).map { IntakeParser.Step.pushed($0, of: 2000) }
        #expect(record.steps.withLock { $0 } == [.leased] + pushes + [.pushed(2000, of: 2000), .parsed])
        #expect(try await queue.statistics().staged == 2000)
        let status = try await queue.status(ofBatch: "big")
        #expect(status.total == 2000 && status.pending == 2000, "\(status)")
        #expect(try await queue.client.send(["EXISTS", Self.parsingKeys(queue).slot, queue.keys.parsingDocument]).integer == 0)
        // and its slices become the jobs, in order
        while try await queue.statistics().staged > 0 { _ = try await queue.claim(upTo: 1, worker: "w") }
        try await queue.resume()
        let jobs = try await queue.claim(upTo: 2000, worker: "w")
        #expect(jobs.map(\.url) == (0..<2000).map { "https://images.example/big/\($0).jpg" })
    }

    @Test func aSmallDocumentIsStillExpandedByTheClaimItself() async throws {
        let record = StandInIntakeParser()
        let queue = try makeQueue { $0.intakeParser = record.parser() }
        try await queue.pause()
        try await queue.client.send(["RPUSH", queue.keys.intake, Self.document(50, batch: "small")])
        _ = try await queue.claim(upTo: 1, worker: "w")
        #expect(record.parsed.withLock { $0 } == 0)
        #expect(try await queue.queuedCount() == 50)
    }

    @Test func anInvalidLargeDocumentIsDeadLetteredWithTheParsersVerdictAndItsBatchsEvent() async throws {
        // Given a batch, and a large document for it that the parser refuses
        let queue = try makeQueue { configuration in
            configuration.intakeParser = IntakeParser { _ in .invalid(code: "invalid_document", message: "unknown \"priority\"", batch: "named") }
        }
        try await queue.pause()
        _ = try await queue.enqueue(urls: urls(1), batchID: "named")
        let document = Self.document(1000, batch: "named", extra: #","priority":"urgent""#)
        try await queue.client.send(["RPUSH", queue.keys.intake, document])

        // When a claim takes it
        _ = try await queue.claim(upTo: 1, worker: "w")

        // Then it is a dead letter with that code and message, keeping the document, and the batch heard of it
        let dead = try await queue.deadLetters()
        #expect(dead.count == 1)
        #expect(dead.first?.error == "invalid_document" && dead.first?.message == #"unknown "priority""#)
        #expect(dead.first?.fields["document"] == document)
        let events = try await queue.client.send(["XRANGE", queue.keys.batchEvents("named"), "-", "+"]).array
        #expect(events.contains { "\($0)".contains("deadLettered") }, "\(events)")
        #expect(try await queue.status(ofBatch: "named").total == 1)
        #expect(try await queue.client.send(["EXISTS", queue.keys.parsingDocument]).integer == 0)
    }

    @Test func whileADocumentIsParsedNoOtherIsTakenAndAnExpiredLeaseGoesToTheNextWorkerFromScratch() async throws {
        // Given a document parked for worker "gone", which pushed 300 URLs and died (its calls made by hand)
        let record = StandInIntakeParser()
        // (Whole slices of 100 a claim, whatever the time: the test counts claims.)
        let queue = try makeQueue { $0.intakeParser = record.parser(); $0.sliceBudget = .zero }
        var goneConfiguration = JobQueue.Configuration()
        goneConfiguration.intakeParser = IntakeParser { _ in .valid(urls: [], fields: "{}") }
        let gone = try JobQueue(client: queue.client, name: queue.keys.name, configuration: goneConfiguration)
        try await queue.pause()
        try await queue.client.send(["RPUSH", queue.keys.intake, Self.document(1000, batch: "first"), Self.document(1, batch: "second")])
        let reply = try await gone.run(QueueScripts.claim, ["1", "gone"]).array
        let token = try #require(QueueHousekeeping(reply.dropFirst().first).parsingLeases.first)
        let urls = (0..<300).map { "https://images.example/first/\($0).jpg" }
        #expect(try await gone.run(QueueScripts.parsePush, [token, "0"] + urls).integer == 300)
        // a push repeated after a lost reply pushes nothing, one out of step is refused
        #expect(try await gone.run(QueueScripts.parsePush, [token, "0"] + urls).integer == 300)
        await #expect(throws: SchedulerError.self) { try await gone.run(QueueScripts.parsePush, [token, "100"] + urls) }

        // When other claims come while its lease runs, they take no other document
        _ = try await queue.claim(upTo: 1, worker: "w")
        #expect(record.parsed.withLock { $0 } == 0)
        #expect(try await queue.client.send(["LLEN", queue.keys.intake]).integer == 1)
        #expect(try await queue.client.send(["EXISTS", queue.keys.batch("second")]).integer == 0)

        // and once it expired (its deadline set in the past), the next claim's worker parses it from scratch
        try await queue.client.send(["HSET", Self.parsingKeys(queue).slot, "deadline", "0"])
        _ = try await queue.claim(upTo: 1, worker: "w")
        #expect(record.parsed.withLock { $0 } == 1)
        #expect(try await queue.statistics().staged == 1000)
        // Then the dead worker's token is refused and changes nothing
        await #expect(throws: SchedulerError.self) { try await gone.run(QueueScripts.parsePush, [token, "0"] + urls) }
        await #expect(throws: SchedulerError.self) { try await gone.run(QueueScripts.parseEnd, [token, "accept", "{\"v\":1}", "300"]) }
        // and the batch counts each URL once; the second document comes next, in order
        #expect(try await queue.status(ofBatch: "first").total == 1000)
        for _ in 0..<11 { _ = try await queue.claim(upTo: 1, worker: "w") }
        #expect(try await queue.status(ofBatch: "second").total == 1)
        #expect(try await queue.queuedCount() == 1001)
        #expect(try await queue.client.send(["HLEN", queue.keys.work]).integer == 1001)
    }

    @Test func aClientThatParsesNothingExpandsADocumentWhoseParsingLeaseExpired() async throws {
        // Given a document parked for a worker that died before pushing anything
        let parsing = try makeQueue { $0.intakeParser = IntakeParser { _ in .valid(urls: [], fields: "{}") } }
        try await parsing.pause()
        try await parsing.client.send(["RPUSH", parsing.keys.intake, Self.document(1000, batch: "orphan")])
        _ = try await parsing.run(QueueScripts.claim, ["1", "gone"])
        try await parsing.client.send(["HSET", Self.parsingKeys(parsing).slot, "deadline", "0"])

        // When a client without a parser claims
        let bare = try JobQueue(client: parsing.client, name: parsing.keys.name)
        _ = try await bare.claim(upTo: 1, worker: "old")

        // Then Redis expands it as before: staged whole, counted once
        #expect(try await bare.statistics().staged == 1000)
        #expect(try await bare.status(ofBatch: "orphan").total == 1000)
        #expect(try await bare.client.send(["EXISTS", Self.parsingKeys(parsing).slot, parsing.keys.parsingDocument]).integer == 0)
    }
}
