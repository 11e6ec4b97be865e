import Testing
@testable import Scheduler

/// Identical work asked for by several batches is one job that counts in each.
@Suite("Job queue coalescing")
struct JobQueueCoalescingTests {
    private let worker = "test-worker"

    @Test func sharedURLsAreOneJobCountedInEveryBatch() async throws {
        // Given two batches sharing 5 of their URLs
        let queue = try makeQueue()
        let a = try await queue.enqueue(urls: urls(5, "shared") + urls(2, "a"))
        let b = try await queue.enqueue(urls: urls(5, "shared") + urls(3, "b"))
        // When every job is claimed and completed
        let jobs = try await queue.claim(upTo: 100, worker: worker)
        for job in jobs { try await queue.finish(job, outcome: .completed(source: "network", bytes: 1), worker: worker) }
        // Then there were 10 jobs for 15 URLs, and both batches count all of theirs
        #expect(jobs.count == 10)
        #expect(jobs.filter { $0.batches == [a, b] || $0.batches == [b, a] }.count == 5)
        let statusA = try await queue.status(ofBatch: a), statusB = try await queue.status(ofBatch: b)
        #expect(statusA.completed == 7 && statusA.isFinished)
        #expect(statusB.completed == 8 && statusB.isFinished)
        // …with a completed event in each batch's stream
        let eventsB = try await EventStream(queue: queue).read(batch: b, after: .beginning, timeout: .milliseconds(50), using: makeClient())
        #expect(eventsB.filter { $0.kind == .completed }.count == 8)
        #expect(eventsB.allSatisfy { $0.batchID == b })
    }

    @Test func aURLRepeatedInOneBatchCountsTwice() async throws {
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(1) + urls(1))
        let jobs = try await queue.claim(upTo: 10, worker: worker)
        #expect(jobs.count == 1)
        try await queue.finish(jobs[0], outcome: .completed(source: "network", bytes: 1), worker: worker)
        let status = try await queue.status(ofBatch: batch)
        #expect(status.total == 2 && status.completed == 2 && status.isFinished)
    }

    @Test func differentDestinationsOrProcessingAreDifferentWork() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1))
        _ = try await queue.enqueue(urls: urls(1), destination: .processed, processing: "thumbnail=64")
        _ = try await queue.enqueue(urls: urls(1), destination: .processed, processing: "thumbnail=128")
        #expect(try await queue.claim(upTo: 10, worker: worker).count == 3)
    }

    @Test func sharedWorkRunsAtTheHighestPriorityAskedFor() async throws {
        // Given a low-priority shared job behind normal ones
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1, "shared"), priority: .low)
        _ = try await queue.enqueue(urls: urls(3, "normal"), priority: .normal)
        // When a veryHigh batch asks for the same URL
        _ = try await queue.enqueue(urls: urls(1, "shared"), priority: .veryHigh)
        // Then it is served first, as veryHigh
        let first = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        #expect(first.url == urls(1, "shared")[0] && first.priority == "veryHigh")
    }

    @Test func workEnqueuedAfterTheSharedJobEndedIsNewWork() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1))
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        try await queue.finish(job, outcome: .completed(source: "network", bytes: 1), worker: worker)
        let later = try await queue.enqueue(urls: urls(1))
        let again = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        #expect(again.id != job.id && again.batches == [later])
    }

    @Test func aBatchJoiningARunningJobGetsItsStartedEventAndRaisesItsPriority() async throws {
        // Given a normal job already running
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1))
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        let control = ControlStream(queue: queue)
        let position = try await control.latestPosition()
        // When a veryHigh batch asks for the same work
        let late = try await queue.enqueue(urls: urls(1), priority: .veryHigh)
        // Then the late batch's stream shows the job started, by its worker…
        let events = try await EventStream(queue: queue).read(batch: late, after: .beginning, timeout: .milliseconds(50), using: makeClient())
        #expect(events.map(\.kind) == [.started])
        #expect(events.first?.jobID == job.id && events.first?.fields["worker"] == worker)
        // …and the worker is told to run it at the new priority
        let read = try await control.read(after: position, timeout: .milliseconds(100), using: makeClient())
        #expect(read.messages == [.priority(jobID: job.id, priority: .veryHigh)])
        // When it completes, it counts in the late batch too
        try await queue.finish(job, outcome: .completed(source: "network", bytes: 1), worker: worker)
        #expect(try await queue.status(ofBatch: late).completed == 1)
    }
}
