import Testing
@testable import Scheduler

/// Issue 24, item 5: a document of more than 50 URLs is staged whole by the
/// call that checks it, then becomes jobs 100 URLs per claim (staging.lua), so that
/// no call holds Redis for long, and its batch stays
/// exact meanwhile: every URL counts in the total at once, a cancel reaches
/// the URLs not yet jobs, a priority change reaches the later slices, and a
/// half-expanded document is finished by whichever claim comes next. A
/// slice stops early once it has spent the queue's `sliceBudget`.
///
/// The tests that count whole slices turn the time budget off, so that
/// their counts never depend on the machine's speed.
@Suite("Intake slices")
struct IntakeSliceTests {
    private static let slice = 100
    /// The URLs a slice makes into jobs between two looks at the clock (slices.lua).
    private static let chunk = 20

    /// A queue whose claims make whole slices of 100, however long they take.
    private func makeQueue() throws -> JobQueue {
        try SchedulerTests.makeQueue { $0.sliceBudget = .zero }
    }

    /// A document of `count` URLs for `batch`, pushed with a plain RPUSH.
    private func push(_ count: Int, batch: String, to queue: JobQueue, extra: String = "") async throws {
        let urls = (0..<count).map { #""https://images.example/\#(batch)/\#($0).jpg""# }.joined(separator: ",")
        try await queue.client.send(["RPUSH", queue.keys.intake, #"{"v":1,"batch":"\#(batch)"\#(extra),"urls":[\#(urls)]}"#])
    }

    @Test func aLargeDocumentBecomesJobsOneSlicePerClaimWhileItsBatchCountsEveryURL() async throws {
        // Given a paused queue (claims expand intake, then hand out nothing) and a 1,000-URL document
        let queue = try makeQueue()
        try await queue.pause()
        try await push(1000, batch: "big", to: queue)

        // When one claim runs, the document is checked and staged whole, and the batch counts all of it
        _ = try await queue.claim(upTo: 1, worker: "w")
        #expect(try await queue.queuedCount() == 0)
        #expect(try await queue.statistics().staged == 1000)
        let status = try await queue.status(ofBatch: "big")
        #expect(status.total == 1000 && status.pending == 1000 && !status.isFinished, "\(status)")

        // Then each further claim makes one slice of jobs, until none is staged
        for expected in stride(from: Self.slice, through: 1000, by: Self.slice) {
            _ = try await queue.claim(upTo: 1, worker: "w")
            #expect(try await queue.queuedCount() == expected)
        }
        #expect(try await queue.statistics().staged == 0)
        // and the URLs became jobs once each, in the document's order
        try await queue.resume()
        let jobs = try await queue.claim(upTo: 1000, worker: "w")
        #expect(jobs.map(\.url) == (0..<1000).map { "https://images.example/big/\($0).jpg" })
    }

    @Test func aDocumentPushedBehindAStagedOneWaitsForItsSlicesToFinish() async throws {
        let queue = try makeQueue()
        try await queue.pause()
        try await push(600, batch: "first", to: queue)
        try await push(1, batch: "second", to: queue)
        // One claim stages the first document, six make its slices; only the eighth takes the second document
        for _ in 0..<7 { _ = try await queue.claim(upTo: 1, worker: "w") }
        #expect(try await queue.status(ofBatch: "first").total == 600)
        #expect(try await queue.queuedCount() == 600)
        _ = try await queue.claim(upTo: 1, worker: "w")
        #expect(try await queue.queuedCount() == 601)
    }

    @Test func cancellingABatchWithStagedURLsCancelsThemAndCompletesTheBatch() async throws {
        // Given a 1,000-URL batch submitted over the API's path, staged, one slice of it made into jobs
        let queue = try makeQueue()
        let urls = (0..<1000).map { #""https://images.example/c/\#($0).jpg""# }.joined(separator: ",")
        let submission = try await queue.submit(document: Array(#"{"v":1,"batch":"cancel-me","urls":[\#(urls)]}"#.utf8))
        #expect(submission.newJobs == 0 && submission.staged == 1000)
        try await queue.pause()
        _ = try await queue.claim(upTo: 1, worker: "w")
        #expect(try await queue.queuedCount() == Self.slice)

        // When it is cancelled
        _ = try await queue.cancel(batch: "cancel-me")

        // Then every URL counts as cancelled, the batch is finished, and no later claim makes a job of it
        let status = try await queue.status(ofBatch: "cancel-me")
        #expect(status.total == 1000 && status.cancelled == 1000 && status.isFinished, "\(status)")
        #expect(try await queue.statistics().staged == 0)
        #expect(try await queue.claim(upTo: 10, worker: "w").isEmpty)
        #expect(try await queue.queuedCount() == 0)
    }

    @Test func aPriorityChangeReachesTheSlicesNotYetJobs() async throws {
        let queue = try makeQueue()
        try await queue.pause()
        try await push(500, batch: "urgent-later", to: queue, extra: #","priority":"low""#)
        for _ in 0..<3 { _ = try await queue.claim(upTo: 1, worker: "w") }
        // When the batch's priority changes while part of it is staged
        _ = try await queue.setPriority(.high, ofBatch: "urgent-later")
        for _ in 0..<3 { _ = try await queue.claim(upTo: 1, worker: "w") }
        // Then the jobs of the later slice are made at the new priority, as the changed ones
        try await queue.resume()
        let jobs = try await queue.claim(upTo: 500, worker: "w")
        #expect(jobs.count == 500)
        #expect(jobs.allSatisfy { $0.priority == "high" }, "\(Set(jobs.map(\.priority)))")
    }

    @Test func theSlicesOfADocumentQueueTheirJobsInTheDocumentsGroup() async throws {
        let queue = try makeQueue()
        try await queue.pause()
        try await push(600, batch: "grouped", to: queue, extra: #","group":"tenant-a""#)
        for _ in 0..<7 { _ = try await queue.claim(upTo: 1, worker: "w") }
        #expect(try await queue.statistics().staged == 0)
        // Every job, the staged slices' too, is in the document's group, not its batch's
        let members = try await queue.client.send(["ZCARD", queue.keys.groupQueue("tenant-a")]).integer
        #expect(members == 600)
        #expect(try await queue.client.send(["EXISTS", queue.keys.groupQueue("grouped")]).integer == 0)
    }

    @Test func aSliceThatHasSpentItsBudgetStopsAfterTheChunkThatPassedIt() async throws {
        // Given a queue whose slices may take 1 µs, less than any chunk of 20 jobs takes, and a staged 200-URL document
        let queue = try SchedulerTests.makeQueue { $0.sliceBudget = .microseconds(1) }
        try await queue.pause()
        try await push(200, batch: "budget", to: queue)
        _ = try await queue.claim(upTo: 1, worker: "w")
        #expect(try await queue.statistics().staged == 200)

        // Then each claim makes one chunk of jobs, until none is staged
        for expected in stride(from: Self.chunk, through: 200, by: Self.chunk) {
            _ = try await queue.claim(upTo: 1, worker: "w")
            #expect(try await queue.queuedCount() == expected)
        }
        #expect(try await queue.statistics().staged == 0)
        // and the jobs are the document's URLs, once each, in order
        try await queue.resume()
        let jobs = try await queue.claim(upTo: 200, worker: "w")
        #expect(jobs.map(\.url) == (0..<200).map { "https://images.example/budget/\($0).jpg" })
    }

    @Test func aCallOfMoreThanFiftyURLsStagesThemAllAndOneOfFiftyMakesThemAtOnce() async throws {
        let queue = try makeQueue()
        try await queue.pause()
        // 50 URLs in one enqueue call become jobs at once; 51 are all staged, counted in their batch
        _ = try await queue.enqueue(urls: (0..<50).map { "https://images.example/fifty/\($0).jpg" }, batchID: "fifty")
        #expect(try await queue.queuedCount() == 50)
        var whole = JobQueue.Configuration()
        whole.enqueueChunkSize = 51
        let wide = try JobQueue(client: queue.client, name: queue.keys.name, configuration: whole)
        _ = try await wide.enqueue(urls: (0..<51).map { "https://images.example/more/\($0).jpg" }, batchID: "more")
        #expect(try await queue.queuedCount() == 50)
        #expect(try await queue.statistics().staged == 51)
        #expect(try await queue.status(ofBatch: "more").total == 51)
        // and the next claim makes them
        _ = try await queue.claim(upTo: 1, worker: "w")
        #expect(try await queue.queuedCount() == 101)
    }

    @Test func withTheDefaultBudgetEveryClaimMakesAtLeastAChunkAndAtMostASlice() async throws {
        let queue = try SchedulerTests.makeQueue()
        #expect(queue.configuration.sliceBudget == .milliseconds(2))
        try await queue.pause()
        try await push(1000, batch: "default", to: queue)
        _ = try await queue.claim(upTo: 1, worker: "w")
        var queued = 0
        while try await queue.statistics().staged > 0 {
            _ = try await queue.claim(upTo: 1, worker: "w")
            let now = try await queue.queuedCount()
            #expect((Self.chunk...Self.slice).contains(now - queued), "a claim made \(now - queued) jobs")
            queued = now
        }
        #expect(queued == 1000)
        #expect(try await queue.status(ofBatch: "default").total == 1000)
    }

    @Test func theWakeUpMarkersOfTheSlicesDoNotPileUpWhereTheLastClaimWouldPopThemOneByOne() async throws {
        // Given a staged document, and an idle worker that wakes (BLMOVE intake → intake:pending) at each slice's marker
        let queue = try makeQueue()
        try await queue.pause()
        try await push(1000, batch: "wakes", to: queue)
        _ = try await queue.claim(upTo: 1, worker: "w")
        var longest = 0
        while try await queue.statistics().staged > 0 {
            _ = try await queue.claim(upTo: 1, worker: "w")
            _ = try await queue.client.send(["LMOVE", queue.keys.intake, queue.keys.pendingIntake, "LEFT", "RIGHT"])
            longest = max(longest, try await queue.client.send(["LLEN", queue.keys.pendingIntake]).integer ?? 0)
        }
        // Then the moved markers were dropped by the next claim each time: at most the last one waits
        #expect(longest <= 1, "intake:pending held \(longest) wake-up markers")
        #expect(try await queue.queuedCount() == 1000)
    }
}
