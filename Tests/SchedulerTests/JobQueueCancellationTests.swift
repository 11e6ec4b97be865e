import Testing
@testable import Scheduler

/// Cancelling batches and jobs: queued work leaves at once, running work is
/// told to stop, shared work goes on for the batches that still need it.
@Suite("Job queue cancellation")
struct JobQueueCancellationTests {
    private let worker = "test-worker"

    @Test func cancellingABatchRemovesItsQueuedJobsAndCountsThemCancelled() async throws {
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(5))
        // When
        let result = try await queue.cancel(batch: batch, chunk: 2)
        // Then
        #expect(result.cancelledJobs == 5 && result.abortedRunningJobs == 0)
        #expect(try await queue.queuedCount() == 0)
        let status = try await queue.status(ofBatch: batch)
        #expect(status.cancelled == 5 && status.isFinished && status.cancelledAt != nil)
        let kinds = try await EventStream(queue: queue).read(batch: batch, after: .beginning, timeout: .milliseconds(50), using: makeClient()).map(\.kind)
        #expect(kinds == Array(repeating: .cancelled, count: 5) + [.batchCompleted])
    }

    @Test func aRunningJobIsToldToStopThroughTheControlStream() async throws {
        // Given a running job
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(1))
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        let control = ControlStream(queue: queue)
        let position = try await control.latestPosition()
        // When its batch is cancelled
        let result = try await queue.cancel(batch: batch)
        // Then a cancel message names it, and the lease renewal reports it too
        #expect(result.abortedRunningJobs == 1)
        let read = try await control.read(after: position, timeout: .milliseconds(100), using: makeClient())
        #expect(read.messages == [.cancel(jobID: job.id)])
        #expect(try await queue.renewLeases(of: [job]).cancelled == [job.id])
        // The batch already counts it cancelled; the worker's acknowledgement ends the job
        #expect(try await queue.status(ofBatch: batch).cancelled == 1)
        try await queue.finish(job, outcome: .cancelled, worker: worker)
        #expect(try await queue.statistics().active == 0)
        #expect(try await queue.status(ofBatch: batch).cancelled == 1)
    }

    @Test func aJobAnotherBatchNeedsGoesOn() async throws {
        // Given a running job shared by two batches
        let queue = try makeQueue()
        let cancelled = try await queue.enqueue(urls: urls(1, "shared") + urls(1, "own"))
        let kept = try await queue.enqueue(urls: urls(1, "shared"))
        let jobs = try await queue.claim(upTo: 2, worker: worker)
        let shared = try #require(jobs.first { $0.url == urls(1, "shared")[0] })
        // When one batch is cancelled
        let result = try await queue.cancel(batch: cancelled)
        // Then only the job nobody else needs is aborted
        #expect(result.cancelledJobs == 1 && result.abortedRunningJobs == 1)
        #expect(try await queue.renewLeases(of: jobs).cancelled == jobs.filter { $0.id != shared.id }.map(\.id))
        // …and the shared job's completion counts for the other batch only
        try await queue.finish(shared, outcome: .completed(source: "network", bytes: 1), worker: worker)
        let keptStatus = try await queue.status(ofBatch: kept)
        let cancelledStatus = try await queue.status(ofBatch: cancelled)
        #expect(keptStatus.completed == 1 && keptStatus.isFinished)
        #expect(cancelledStatus.cancelled == 2 && cancelledStatus.completed == 0 && cancelledStatus.isFinished)
    }

    /// - Parameters:
    ///   - byJob: cancelled by id, else through its batch; nil: not
    ///     cancelled at all, the worker reports it cancelled on its own
    ///     (it had taken a stale cancel message for it).
    ///   - releasing: the worker gives it back as it stops, else acknowledges it.
    @Test(arguments: [(true, false), (true, true), (false, false), (false, true), (nil, false)] as [(Bool?, Bool)])
    func aCancelledEventNeverNamesAWorkerWhoeverAcknowledgesIt(byJob: Bool?, releasing: Bool) async throws {
        // Given a running job
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(1))
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        // When it is cancelled (by id or through its batch) and its worker
        // acknowledges, or gives it back as it stops
        switch byJob {
        case true?: try await queue.cancel(jobs: [job.id])
        case false?: try await queue.cancel(batch: batch)
        case nil: break
        }
        if releasing {
            #expect(try await queue.release(job))
        } else {
            try await queue.finish(job, outcome: .cancelled, worker: worker)
        }
        // Then every `cancelled` event, read raw from both streams, has no `worker` field
        var cancelled: [[String: String]] = []
        for stream in [queue.keys.events, queue.keys.prefix + "batch:" + batch + ":events"] {
            let entries = try await queue.client.send(["XRANGE", stream, "-", "+"]).array
            cancelled += entries.compactMap { $0.array.last?.fieldDictionary }.filter { $0["type"] == "cancelled" }
        }
        #expect(cancelled.count == 2, "\(cancelled)")
        #expect(cancelled.allSatisfy { $0["worker"] == nil && $0["job"] == job.id }, "\(cancelled)")
    }

    @Test func aCancelledRunningJobCannotBeReleasedBackToTheQueue() async throws {
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(1))
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        try await queue.cancel(batch: batch)
        #expect(try await queue.release(job))
        #expect(try await queue.queuedCount() == 0)
        #expect(try await queue.statistics().active == 0)
    }

    @Test func cancellingSingleJobsCountsThemInEveryBatch() async throws {
        let queue = try makeQueue()
        let a = try await queue.enqueue(urls: urls(2))
        let b = try await queue.enqueue(urls: urls(1))
        let ids = try await queue.claim(upTo: 2, worker: worker).map(\.id)
        try await queue.cancel(jobs: [ids[0]])
        #expect(try await queue.status(ofBatch: a).cancelled == 1)
        #expect(try await queue.status(ofBatch: b).cancelled == 1)
        #expect(try await queue.status(ofBatch: b).isFinished)
    }

    @Test func cancellingAnUnknownBatchIsReported() async throws {
        await #expect(throws: SchedulerError.batchNotFound("nope")) { try await makeQueue().cancel(batch: "nope") }
    }
}
