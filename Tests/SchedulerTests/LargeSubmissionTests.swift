import Testing
@testable import RedisKit
@testable import Scheduler

/// Issue 24, item 5: a large document sent over HTTP (`JobQueue.submit`) is
/// never decoded in Redis when the client has an intake parser (as `warmer
/// serve` does): the client parses it, pushes its URLs in bounded calls
/// (submit-push.lua) and one last call checks its fields, counts it and
/// stages it (submit.lua). The parser is the stand-in, whose verdicts Redis
/// never words, so a refusal shows who decided.
@Suite("Large submissions")
struct LargeSubmissionTests {
    /// A document of `count` URLs (about 40 bytes each: 1,000 make 40 KB, over the 32 KiB threshold).
    private static func document(_ count: Int, batch: String, extra: String = "") -> [UInt8] {
        let urls = (0..<count).map { #""https://images.example/\#(batch)/\#($0).jpg""# }.joined(separator: ",")
        return Array(#"{"v":1,"batch":"\#(batch)"\#(extra),"urls":[\#(urls)]}"#.utf8)
    }

    /// The submission lists left in Redis (none once a submission ended either way).
    private static func submissionLists(_ queue: JobQueue) async throws -> [String] {
        let reply = try await queue.client.send(["KEYS", queue.keys.prefix + "intake:submitting:*"])
        return reply.array.compactMap(\.string)
    }

    @Test func aLargeSubmittedDocumentIsParsedByTheClientPushedInBoundedCallsAndStagedWhole() async throws {
        let record = StandInIntakeParser()
        let queue = try makeQueue { $0.intakeParser = record.parser() }
        try await queue.pause()

        let submission = try await queue.submit(document: Self.document(2000, batch: "posted"))

        #expect(record.parsed.withLock { $0 } == 1)
        #expect(submission.batch == "posted" && submission.newJobs == 0 && submission.staged == 2000 && !submission.replayed)
        let status = try await queue.status(ofBatch: "posted")
        #expect(status.total == 2000 && status.pending == 2000, "\(status)")
        #expect(try await queue.statistics().staged == 2000)
        #expect(try await Self.submissionLists(queue).isEmpty)
        // The staging list is the renamed submission list: it must not keep the submission's expiry
        let staging = try await queue.client.send(["LRANGE", queue.keys.prefix + "intake:staging", "0", "-1"]).array
        let urls = queue.keys.prefix + "intake:staging:" + (staging.first?.string ?? "?") + ":urls"
        #expect(try await queue.client.send(["TTL", urls]).integer == -1)
        // and its slices become the jobs, in order
        while try await queue.statistics().staged > 0 { _ = try await queue.claim(upTo: 1, worker: "w") }
        try await queue.resume()
        let jobs = try await queue.claim(upTo: 2000, worker: "w")
        #expect(jobs.map(\.url) == (0..<2000).map { "https://images.example/posted/\($0).jpg" })
    }

    @Test func anInvalidLargeDocumentIsRefusedWithTheParsersVerdictAndNothingIsWritten() async throws {
        let record = StandInIntakeParser()
        let queue = try makeQueue { $0.intakeParser = record.parser() }
        var broken = Self.document(1000, batch: "broken")
        broken.removeLast()

        await #expect(throws: SchedulerError.invalidDocument(code: "malformed_document", message: "not JSON: stand-in")) {
            try await queue.submit(document: broken)
        }
        #expect(record.parsed.withLock { $0 } == 1)
        #expect(try await queue.client.send(["EXISTS", queue.keys.prefix + "batch:broken"]).integer == 0)
        #expect(try await Self.submissionLists(queue).isEmpty)
    }

    @Test func aClientParsesFromTheSameSizeAsAWorkersClaimLeavesToIt() throws {
        let parsing = try #require(QueueScript.libraries["parsing"]?.text)
        #expect(parsing.contains("local LARGE_DOCUMENT_BYTES = \(JobQueue.largeDocumentBytes)\n"))
    }

    @Test func aSmallDocumentIsStillDecodedByRedisInOneCall() async throws {
        let record = StandInIntakeParser()
        let queue = try makeQueue { $0.intakeParser = record.parser() }
        let submission = try await queue.submit(document: Self.document(50, batch: "small"))
        #expect(record.parsed.withLock { $0 } == 0)
        #expect(submission.newJobs + submission.staged == 50)
    }

    @Test func aLargeDocumentSentAgainIsReplayedAndItsPushedURLsDropped() async throws {
        let queue = try makeQueue { $0.intakeParser = StandInIntakeParser().parser() }
        let document = Self.document(1000, batch: "again")
        _ = try await queue.submit(document: document)
        let again = try await queue.submit(document: document)

        #expect(again.replayed && again.staged == 0)
        #expect(try await queue.status(ofBatch: "again").total == 1000)
        #expect(try await queue.statistics().staged == 1000)
        #expect(try await Self.submissionLists(queue).isEmpty)
    }

    @Test func aLargePartThatWouldOverflowItsBatchIsRefusedByRedisAndItsURLsDropped() async throws {
        let queue = try makeQueue { $0.intakeParser = StandInIntakeParser().parser() }
        _ = try await queue.submit(document: Self.document(1000, batch: "parts", extra: #","total":1500"#))
        // The same URLs under another digest: a second part of 1,000 in a batch of 1,500
        let second = Self.document(1000, batch: "parts", extra: #","total":1500,"priority":"high""#)

        await #expect(throws: SchedulerError.invalidDocument(
            code: "invalid_document",
            message: #"batch "parts" has total 1500 and 1000 URLs in: this part's 1000 would make 2000"#)) {
            try await queue.submit(document: second)
        }
        #expect(try await queue.status(ofBatch: "parts").total == 1500)
        #expect(try await queue.statistics().staged == 1000)
        #expect(try await Self.submissionLists(queue).isEmpty)
    }

    @Test func theURLsOfASubmissionWhoseClientStoppedExpireAndCountNowhere() async throws {
        let queue = try makeQueue()
        let list = queue.keys.prefix + "intake:submitting:gone-1"
        // A client pushed part of a document, once and then again (its reply lost), and stopped
        #expect(try await queue.run(QueueScripts.submitPush, ["gone-1", "0", "https://a.example/1", "https://a.example/2"]).integer == 2)
        #expect(try await queue.run(QueueScripts.submitPush, ["gone-1", "0", "https://a.example/1", "https://a.example/2"]).integer == 2)
        #expect(try await queue.client.send(["LLEN", list]).integer == 2)
        let ttl = try await queue.client.send(["TTL", list]).integer ?? -1
        #expect(ttl > 0 && ttl <= 600)
        // A push out of step, a token Redis cannot use, and an end that does not match are refused
        await #expect(throws: SchedulerError.self) {
            try await queue.run(QueueScripts.submitPush, ["gone-1", "5", "https://a.example/7"])
        }
        await #expect(throws: SchedulerError.self) {
            try await queue.run(QueueScripts.submitPush, ["../other", "0", "https://a.example/1"])
        }
        await #expect(throws: SchedulerError.self) {
            try await queue.run(QueueScripts.submit, [#"{"v":1,"batch":"gone"}"#, "fallback", "digest", "3", "gone-1"])
        }
        // and nothing counts anywhere
        #expect(try await queue.client.send(["EXISTS", queue.keys.prefix + "batch:gone"]).integer == 0)
        #expect(try await queue.statistics().staged == 0)
    }
}
