import Foundation
import Testing
import TestSupport
@testable import Scheduler

@Suite("JobQueue")
struct JobQueueTests {
    let worker = "test-worker"

    @Test func claimsHigherPriorityFirstAndFIFOWithinAPriority() async throws {
        // Given: low jobs first, then a high and a veryHigh job enqueued after them.
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(3, "low"), priority: .low)
        _ = try await queue.enqueue(urls: urls(1, "high"), priority: .high)
        _ = try await queue.enqueue(urls: urls(1, "top"), priority: .veryHigh)
        _ = try await queue.enqueue(urls: urls(1, "normal"), priority: .normal)
        // When
        let claimed = try await queue.claim(upTo: 10, worker: worker)
        // Then
        #expect(claimed.map(\.url) == urls(1, "top") + urls(1, "high") + urls(1, "normal") + urls(3, "low"))
    }

    @Test func claimReturnsTheJobDocumentWithALease() async throws {
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(1), priority: .high, destination: .disk)
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        #expect(job.batchID == batch)
        #expect(job.priority == "high")
        #expect(job.destination == "disk")
        #expect(job.attempt == 1)
        #expect(job.leaseToken.hasPrefix(worker + "/"))
        let lease = try await queue.client.send(["ZSCORE", queue.keys.leases, job.id]).string
        #expect(lease != nil)
        #expect(try await queue.claim(upTo: 1, worker: worker).isEmpty)
    }

    @Test func finishingCountsInTheBatchAndCompletesIt() async throws {
        // Given
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(3))
        let jobs = try await queue.claim(upTo: 3, worker: worker)
        // When
        try await queue.finish(jobs[0], outcome: .completed(source: "network", bytes: 10), worker: worker)
        try await queue.finish(jobs[1], outcome: .failed(code: "http_404", message: "The origin answered HTTP 404"), worker: worker)
        let midway = try await queue.status(ofBatch: batch)
        try await queue.finish(jobs[2], outcome: .deadLettered(code: "invalid_url", message: "bad"), worker: worker)
        // Then
        #expect(midway.ended == 2 && !midway.isFinished)
        let status = try await queue.status(ofBatch: batch)
        #expect(status.total == 3 && status.completed == 1 && status.failed == 1 && status.dead == 1)
        #expect(status.isFinished && !status.isSuccessful)
        #expect(try await queue.client.send(["ZSCORE", queue.keys.dead, jobs[2].id]).string != nil)
        #expect(try await queue.client.send(["ZCARD", queue.keys.leases]) == .integer(0))
    }

    @Test func finalEventsAndBatchCompletedArePublishedWithTheCounters() async throws {
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(2))
        let jobs = try await queue.claim(upTo: 2, worker: worker)
        try await queue.finish(jobs[0], outcome: .completed(source: "disk", bytes: 42), worker: worker)
        try await queue.finish(jobs[1], outcome: .failed(code: "timed_out", message: "The download timed out"), worker: worker)

        let stream = try await EventStream(queue: queue).read(batch: batch, after: .beginning, timeout: .milliseconds(100), using: makeClient())
        // The claim published `started` for both jobs, with the claiming worker.
        #expect(stream.prefix(2).map(\.kind) == [.started, .started])
        #expect(stream.prefix(2).allSatisfy { $0.fields["worker"] == worker && $0.fields["attempt"] == "1" })
        let events = Array(stream.dropFirst(2))
        #expect(events.map(\.kind) == [.completed, .failed, .batchCompleted])
        #expect(events[0].fields["source"] == "disk" && events[0].bytes == 42 && events[0].jobID == jobs[0].id)
        #expect(events[1].fields["error"] == "timed_out" && events[1].fields["message"] == "The download timed out")
        #expect(events[2].fields["completed"] == "1" && events[2].fields["failed"] == "1" && events[2].fields["total"] == "2")
        // The queue-wide stream has them too.
        let all = try await EventStream(queue: queue).read(after: .beginning, timeout: .milliseconds(100), using: makeClient())
        #expect(all.map(\.kind) == [.started, .started, .completed, .failed, .batchCompleted])
    }

    @Test func aChunkedEnqueueNeverCompletesItsBatchEarly() async throws {
        // Given: chunks of 2, so the batch arrives in 4 script calls.
        let queue = try makeQueue { $0.enqueueChunkSize = 2 }
        let batch = try await queue.enqueue(urls: urls(7))
        // Then: the total was right from the first chunk and every job is there.
        #expect(try await queue.status(ofBatch: batch).total == 7)
        #expect(try await queue.queuedCount() == 7)
    }

    @Test func appendingToABatchGrowsItsTotal() async throws {
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(2, "a"), batchID: "named-batch")
        _ = try await queue.enqueue(urls: urls(3, "b"), batchID: batch)
        #expect(batch == "named-batch")
        #expect(try await queue.status(ofBatch: batch).total == 5)
    }

    @Test func anExpiredLeaseIsReclaimedByAnotherWorker() async throws {
        // Given: a worker claims a job and goes silent (crashed). The lease is
        // one no pause of a loaded machine outlasts: the test puts its deadline
        // in the past by hand, so the second worker's lease cannot lapse too.
        let queue = try makeQueue { $0.leaseDuration = .seconds(60) }
        _ = try await queue.enqueue(urls: urls(1))
        let first = try #require(try await queue.claim(upTo: 1, worker: "crashed").first)
        // When: the lease expires and another worker claims.
        try await queue.client.send(["ZADD", queue.keys.leases, "XX", "1", first.id])
        let second = try #require(try await queue.claim(upTo: 1, worker: "alive").first)
        // Then: same job, second attempt, new token; the crashed worker cannot finish it.
        #expect(second.id == first.id)
        #expect(second.attempt == 2)
        #expect(second.leaseToken != first.leaseToken)
        await #expect(throws: SchedulerError.leaseLost(jobID: first.id)) {
            try await queue.finish(first, outcome: .completed(source: "network", bytes: 1), worker: "crashed")
        }
        try await queue.finish(second, outcome: .completed(source: "network", bytes: 1), worker: "alive")
    }

    @Test func renewingKeepsALeaseAliveAndReportsLostOnes() async throws {
        // Given: two jobs claimed with a lease no pause of a loaded machine
        // outlasts, whose deadlines are then put in the past by hand: their
        // renewal comes after the original deadline, before anyone took
        // them over (no timed wait: the deadline is the one in Redis).
        let queue = try makeQueue { $0.leaseDuration = .seconds(60) }
        _ = try await queue.enqueue(urls: urls(2))
        let jobs = try await queue.claim(upTo: 2, worker: worker)
        try #require(jobs.count == 2)
        for job in jobs { _ = try await queue.client.send(["ZADD", queue.keys.leases, "XX", "1", job.id]) }
        let time = try await queue.client.send(["TIME"]).array.compactMap(\.string).compactMap { Int64($0) }
        let before = try #require(time.first) * 1000
        // When: renewed
        #expect(try await queue.renewLeases(of: jobs).lost.isEmpty)
        // Then: each deadline is a lease from the renewal…
        for job in jobs {
            let deadline = try await queue.client.send(["ZSCORE", queue.keys.leases, job.id]).string.flatMap { Double($0) }
            #expect((deadline ?? 0) >= Double(before + 60_000), "deadline \(deadline ?? -1), renewed after \(before)")
        }
        // …and nobody else can claim them.
        #expect(try await queue.claim(upTo: 2, worker: "other").isEmpty)
        // And a stale token is reported lost.
        let stale = Job(id: jobs[0].id, url: jobs[0].url, batches: jobs[0].batches, priority: jobs[0].priority,
                        destination: jobs[0].destination, attempt: 1, leaseToken: "someone-else/9")
        #expect(try await queue.renewLeases(of: [stale]).lost == [jobs[0].id])
    }

    @Test func releaseRequeuesWithoutCountingAnAttempt() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(2))
        let jobs = try await queue.claim(upTo: 2, worker: worker)
        // When
        #expect(try await queue.release(jobs[1]))
        #expect(try await queue.release(jobs[0]))
        // Then: back in the queue in their original order, still on their first attempt.
        let again = try await queue.claim(upTo: 2, worker: "other")
        #expect(again.map(\.id) == jobs.map(\.id))
        #expect(again.allSatisfy { $0.attempt == 1 })
        // The old leases are void.
        #expect(try await queue.release(jobs[0]) == false)
    }

    @Test func emptyBatchesAreRefused() async throws {
        await #expect(throws: SchedulerError.emptyBatch) { try await makeQueue().enqueue(urls: []) }
    }

    @Test(arguments: ["", "has space", "brace{", "x" + String(repeating: "y", count: 64)])
    func invalidQueueNamesAreRefused(_ name: String) {
        #expect(throws: SchedulerError.invalidQueueName(name)) { try QueueKeys(queue: name) }
    }

    @Test func everyKeyOfAQueueSharesOneHashTag() throws {
        let keys = try QueueKeys(queue: "images")
        let all = [keys.intake, keys.pendingIntake, keys.queue, keys.delayed, keys.leases, keys.sequence, keys.clock, keys.work,
                   keys.events, keys.control, keys.dead, keys.batches, keys.config,
                   keys.job("1"), keys.batch("b"), keys.batchEvents("b"), keys.batchJobs("b")]
        #expect(all.allSatisfy { $0.hasPrefix("warmer:{images}:") })
    }

    @Test func unknownBatchIsReported() async throws {
        await #expect(throws: SchedulerError.batchNotFound("nope")) { try await makeQueue().status(ofBatch: "nope") }
    }

    @Test func anIdleWaitEndsWhenWorkArrives() async throws {
        // Given: an empty queue and a worker waiting on it (a minute at most).
        let queue = try makeQueue()
        let waiter = try await startIdleWait(on: queue)
        // When
        _ = try await queue.enqueue(urls: urls(1))
        // Then: woken by the producer (true), not by the timeout (false).
        #expect(try await waiter.value)
    }
}
