import Testing
@testable import Scheduler

/// Issue 24, item 3: a batch may say `freshFor`; a URL whose work any worker
/// completed within that window counts as `completed` at once, with source
/// `recent`, and no job is made. Completions are remembered in `recent`, a
/// sorted set bounded by the retention and by `recentCapacity`.
@Suite("Recently warmed URLs")
struct RecentlyWarmedTests {
    private let worker = "test-worker"

    /// Claims every queued job and completes it.
    private func completeAll(_ queue: JobQueue) async throws -> [Job] {
        let jobs = try await queue.claim(upTo: 1000, worker: worker)
        for job in jobs { try await queue.finish(job, outcome: .completed(source: "network", bytes: 10), worker: worker) }
        return jobs
    }

    private func events(_ queue: JobQueue, batch: String) async throws -> [JobEvent] {
        try await EventStream(queue: queue).read(batch: batch, after: .beginning, timeout: .milliseconds(50), using: makeClient())
    }

    @Test func aURLCompletedWithinFreshForCountsAsCompletedWithoutAJob() async throws {
        // Given two URLs warmed by an earlier batch
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(2, "warm"))
        #expect(try await completeAll(queue).count == 2)

        // When a batch asks for them and a third one with freshFor an hour
        let batch = try await queue.enqueue(urls: urls(2, "warm") + urls(1, "cold"), freshFor: .seconds(3600))

        // Then only the third becomes a job; the two count as completed from `recent`
        let status = try await queue.status(ofBatch: batch)
        #expect(status.total == 3 && status.completed == 2 && status.recent == 2 && status.pending == 1, "\(status)")
        #expect(try await queue.queuedCount() == 1)
        let recent = try await events(queue, batch: batch).filter { $0.kind == .completed }
        #expect(recent.count == 2)
        #expect(recent.allSatisfy { $0.fields["source"] == "recent" && $0.jobID == nil && $0.batchID == batch })
        #expect(Set(recent.compactMap(\.url)) == Set(urls(2, "warm")))
        // and the batch finishes when the one job does
        let jobs = try await completeAll(queue)
        #expect(jobs.map(\.url) == urls(1, "cold"))
        let finished = try await queue.status(ofBatch: batch)
        #expect(finished.isFinished && finished.completed == 3 && finished.recent == 2, "\(finished)")
    }

    @Test func withoutFreshForEveryURLIsAJob() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(2, "warm"))
        _ = try await completeAll(queue)
        let batch = try await queue.enqueue(urls: urls(2, "warm"))
        #expect(try await queue.queuedCount() == 2)
        #expect(try await queue.status(ofBatch: batch).recent == 0)
        // freshFor 0 is the same as none
        _ = try await completeAll(queue)
        _ = try await queue.enqueue(urls: urls(2, "warm"), freshFor: .zero)
        #expect(try await queue.queuedCount() == 2)
    }

    @Test func aCompletionOlderThanFreshForIsFetchedAgain() async throws {
        // Given a URL completed, its completion then moved two hours back (the wire format's `recent` scores)
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1, "old"))
        _ = try await completeAll(queue)
        let entry = try await queue.client.send(["ZRANGE", queue.keys.recent, "0", "-1", "WITHSCORES"]).array.compactMap(\.string)
        #expect(entry.count == 2)
        let twoHoursAgo = (Int64(entry[1]) ?? 0) - 2 * 3600 * 1000
        try await queue.client.send(["ZADD", queue.keys.recent, String(twoHoursAgo), entry[0]])

        // When asked with freshFor an hour, it is a job; with three hours, it is recent
        let hour = try await queue.enqueue(urls: urls(1, "old"), freshFor: .seconds(3600))
        #expect(try await queue.status(ofBatch: hour).recent == 0)
        _ = try await queue.cancel(batch: hour)
        let threeHours = try await queue.enqueue(urls: urls(1, "old"), freshFor: .seconds(3 * 3600))
        #expect(try await queue.status(ofBatch: threeHours).recent == 1)
    }

    @Test func onlyCompletedWorkIsRemembered() async throws {
        // Given one URL failed, one dead-lettered and one cancelled
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(2, "bad"))
        let jobs = try await queue.claim(upTo: 2, worker: worker)
        try await queue.finish(jobs[0], outcome: .failed(code: "http_404", message: "Not Found"), worker: worker)
        try await queue.finish(jobs[1], outcome: .deadLettered(code: "not_an_image", message: "no"), worker: worker)
        let cancelled = try await queue.enqueue(urls: urls(1, "cancelled"))
        _ = try await queue.cancel(batch: cancelled)

        // When they are asked for again with freshFor, each is a job
        let again = try await queue.enqueue(urls: urls(2, "bad") + urls(1, "cancelled"), freshFor: .seconds(3600))
        #expect(try await queue.status(ofBatch: again).recent == 0)
        #expect(try await queue.queuedCount() == 3)
        #expect(try await queue.client.send(["ZCARD", queue.keys.recent]).integer == 0)
    }

    @Test func liveWorkIsJoinedRatherThanCountedRecent() async throws {
        // Given a URL completed once and queued again since (a batch without freshFor)
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1, "busy"))
        _ = try await completeAll(queue)
        let first = try await queue.enqueue(urls: urls(1, "busy"))

        // When a batch with freshFor asks for it, it joins the live job
        let second = try await queue.enqueue(urls: urls(1, "busy"), freshFor: .seconds(3600))
        #expect(try await queue.status(ofBatch: second).recent == 0)
        let jobs = try await queue.claim(upTo: 10, worker: worker)
        #expect(jobs.count == 1 && Set(jobs[0].batches) == [first, second], "\(jobs)")
    }

    @Test func theDestinationAndProcessingAreTheWorkNotJustTheURL() async throws {
        // Given a URL warmed as raw data
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1, "img"))
        _ = try await completeAll(queue)

        // When it is asked for processed (or processed otherwise), it is a job
        let processed = try await queue.enqueue(urls: urls(1, "img"), destination: .processed, processing: "resize:100x100",
                                                freshFor: .seconds(3600))
        #expect(try await queue.status(ofBatch: processed).recent == 0)
        _ = try await completeAll(queue)
        let other = try await queue.enqueue(urls: urls(1, "img"), destination: .processed, processing: "resize:200x200",
                                            freshFor: .seconds(3600))
        #expect(try await queue.status(ofBatch: other).recent == 0)
        // and the same work again is recent
        _ = try await completeAll(queue)
        let same = try await queue.enqueue(urls: urls(1, "img"), destination: .processed, processing: "resize:200x200",
                                           freshFor: .seconds(3600))
        #expect(try await queue.status(ofBatch: same).recent == 1)
    }

    @Test func aBatchOfRecentURLsOnlyCompletesAtOnce() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(3, "done"))
        _ = try await completeAll(queue)
        let batch = try await queue.enqueue(urls: urls(3, "done"), freshFor: .seconds(60))
        let status = try await queue.status(ofBatch: batch)
        #expect(status.isFinished && status.completed == 3 && status.recent == 3, "\(status)")
        let kinds = try await events(queue, batch: batch).map(\.kind)
        #expect(kinds == [.completed, .completed, .completed, .batchCompleted], "\(kinds)")
        #expect(try await queue.queuedCount() == 0)
    }

    @Test func theRememberedWorkIsBoundedByTheCapacityOldestFirst() async throws {
        // Given a queue that remembers 3 completions, and 5 URLs completed one
        // after another, each completion's time then set a second apart
        // (calls of one millisecond would tie)
        let queue = try makeQueue { $0.recentCapacity = 3 }
        let start = Int64(try await queue.client.send(["TIME"]).array.first?.string ?? "0")! * 1000 - 60_000
        var seen: Set<String> = []
        for index in 0..<5 {
            _ = try await queue.enqueue(urls: ["https://images.example/bounded-\(index).jpg"])
            _ = try await completeAll(queue)
            let members = Set(try await queue.client.send(["ZRANGE", queue.keys.recent, "0", "-1"]).array.compactMap(\.string))
            let new = try #require(members.subtracting(seen).first)
            try await queue.client.send(["ZADD", queue.keys.recent, String(start + Int64(index) * 1000), new])
            seen = members
        }
        #expect(try await queue.client.send(["ZCARD", queue.keys.recent]).integer == 3)

        // Then the two oldest are jobs again, the three newest are recent
        let batch = try await queue.enqueue(urls: (0..<5).map { "https://images.example/bounded-\($0).jpg" },
                                            freshFor: .seconds(3600))
        #expect(try await queue.status(ofBatch: batch).recent == 3)
        let jobs = try await queue.claim(upTo: 10, worker: worker)
        #expect(Set(jobs.map(\.url)) == ["https://images.example/bounded-0.jpg", "https://images.example/bounded-1.jpg"])
    }

    @Test func aCapacityOfZeroRemembersNothing() async throws {
        let queue = try makeQueue { $0.recentCapacity = 0 }
        _ = try await queue.enqueue(urls: urls(2, "x"))
        _ = try await completeAll(queue)
        #expect(try await queue.client.send(["EXISTS", queue.keys.recent]).integer == 0)
        let batch = try await queue.enqueue(urls: urls(2, "x"), freshFor: .seconds(3600))
        #expect(try await queue.status(ofBatch: batch).recent == 0)
    }

    @Test func freshForOutsideItsRangeIsRefused() async throws {
        let queue = try makeQueue()
        await #expect(throws: SchedulerError.self) {
            try await queue.enqueue(urls: urls(1), freshFor: .seconds(JobQueue.freshForRange.upperBound + 1))
        }
        await #expect(throws: SchedulerError.self) { try await queue.enqueue(urls: urls(1), freshFor: .milliseconds(1500)) }
        #expect(try await queue.queuedCount() == 0)
    }
}

/// `freshFor` in intake documents: on the intake list, over `submit`, and in
/// the staged slices of a large document.
@Suite("Recently warmed URLs in documents")
struct RecentlyWarmedDocumentTests {
    private let worker = "test-worker"

    private func completeAll(_ queue: JobQueue) async throws {
        while true {
            let jobs = try await queue.claim(upTo: 1000, worker: worker)
            if jobs.isEmpty { return }
            for job in jobs { try await queue.finish(job, outcome: .completed(source: "network", bytes: 10), worker: worker) }
        }
    }

    private func document(_ urls: [String], batch: String, extra: String = "") -> String {
        let list = urls.map { #""\#($0)""# }.joined(separator: ",")
        return #"{"v":1,"batch":"\#(batch)"\#(extra),"urls":[\#(list)]}"#
    }

    @Test func aSubmittedDocumentReportsItsRecentURLs() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(2, "s"))
        try await completeAll(queue)
        let submission = try await queue.submit(document: Array(document(urls(3, "s"), batch: "sub", extra: #","freshFor":600"#).utf8))
        #expect(submission == .init(batch: "sub", newJobs: 1, replayed: false, staged: 0, recent: 2))
        let status = try await queue.status(ofBatch: "sub")
        #expect(status.completed == 2 && status.recent == 2 && status.total == 3, "\(status)")
    }

    @Test func aDocumentWithAnInvalidFreshForIsRefusedWithItsReason() async throws {
        let queue = try makeQueue()
        await #expect(throws: SchedulerError.invalidDocument(
            code: "invalid_document", message: #""freshFor" must be an integer number of seconds from 0 to 2592000"#)) {
            _ = try await queue.submit(document: Array(document(urls(1), batch: "bad", extra: #","freshFor":-5"#).utf8))
        }
    }

    @Test func theStagedSlicesOfALargeDocumentSkipRecentURLsAsTheyBecomeJobs() async throws {
        // Given 150 of a 250-URL document's URLs warmed before it is pushed
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(150, "big"))
        try await completeAll(queue)
        try await queue.pause()
        try await queue.client.send(["RPUSH", queue.keys.intake, document(urls(250, "big"), batch: "large", extra: #","freshFor":600"#)])

        // When claims stage it and make its slices, until the document is
        // staged (its batch counts all 250) and no slice is left (each claim
        // spends a time budget on it: a loaded machine needs more claims than
        // an idle one; 200 bounds a hang)
        var claims = 0
        var staged = 0
        var total = 0
        repeat {
            _ = try await queue.claim(upTo: 1, worker: worker)
            claims += 1
            staged = try await queue.statistics().staged
            total = (try? await queue.status(ofBatch: "large"))?.total ?? 0
        } while (staged > 0 || total < 250) && claims < 200

        // Then the 150 count as completed from `recent` and only 100 became jobs
        #expect(staged == 0 && total == 250, "after \(claims) claims: \(staged) staged, total \(total)")
        let status = try await queue.status(ofBatch: "large")
        #expect(status.total == 250 && status.completed == 150 && status.recent == 150 && status.pending == 100, "\(status)")
        #expect(try await queue.queuedCount() == 100)
    }
}
