import Testing
@testable import Scheduler

/// Transient failures are retried after a backoff; jobs whose leases keep
/// expiring are dead-lettered.
@Suite("Retries and stalls")
struct RetryAndStallTests {
    private let worker = "test-worker"

    /// Redis's clock, ms since the epoch.
    private func redisTime(_ queue: JobQueue) async throws -> Int {
        let parts = try await queue.client.send(["TIME"]).array.compactMap(\.integer)
        return parts[0] * 1000 + parts[1] / 1000
    }

    @Test func aTransientFailureIsRetriedAfterItsBackoffThenFailsForGood() async throws {
        // Given two attempts per job, the second 5–10 s after the first
        let queue = try makeQueue {
            $0.retry.maximumAttempts = 2
            $0.retry.baseDelay = .seconds(10)
        }
        let batch = try await queue.enqueue(urls: urls(1))
        let first = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        // When the first attempt fails with a transient error
        let before = try await redisTime(queue)
        try await queue.finish(first, outcome: .failed(code: "http_503", message: "busy", isTransient: true), worker: worker)
        let after = try await redisTime(queue)
        // Then the job waits in the delayed set, due after its backoff, and is not claimable yet
        let due = try #require(try await queue.client.send(["ZSCORE", queue.keys.delayed, first.id]).integer)
        #expect(due >= before + 5_000 && due <= after + 10_000, "due \(due - before) ms after the failure")
        #expect(try await queue.claim(upTo: 1, worker: worker).isEmpty)
        #expect(try await queue.status(ofBatch: batch).ended == 0)
        // When its time comes (moved to now rather than waited for)
        try await queue.client.send(["ZADD", queue.keys.delayed, "XX", String(after - 1), first.id])
        // Then a claim promotes it and hands it out for its second attempt
        let second = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        #expect(second.id == first.id && second.attempt == 2)
        #expect(try await queue.statistics().delayed == 0)
        // When the last attempt fails too, it fails for good
        try await queue.finish(second, outcome: .failed(code: "http_503", message: "busy", isTransient: true), worker: worker)
        let status = try await queue.status(ofBatch: batch)
        #expect(status.failed == 1 && status.isFinished)
        let dead = try await queue.deadLetters()
        #expect(dead.map(\.id) == [first.id] && dead.first?.error == "http_503" && dead.first?.state == "failed")
        let stream = try await EventStream(queue: queue).read(batch: batch, after: .beginning, timeout: .milliseconds(50), using: makeClient())
        #expect(stream.map(\.kind) == [.started, .delayed, .started, .failed, .batchCompleted])
        let delayed = try #require(stream.first { $0.kind == .delayed })
        #expect(delayed.fields["error"] == "http_503" && Int(delayed.fields["retry_in_ms"] ?? "") ?? 0 >= 5_000)
    }

    @Test func aPermanentFailureIsNotRetried() async throws {
        let queue = try makeQueue { $0.retry.maximumAttempts = 5 }
        let batch = try await queue.enqueue(urls: urls(1))
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        try await queue.finish(job, outcome: .failed(code: "http_404", message: "gone"), worker: worker)
        #expect(try await queue.status(ofBatch: batch).failed == 1)
        #expect(try await queue.statistics().delayed == 0)
    }

    @Test func aJobWhoseLeaseKeepsExpiringIsDeadLetteredAsStalled() async throws {
        // Given a job may stall once
        let queue = try makeQueue { $0.maximumStalls = 1 }
        let batch = try await queue.enqueue(urls: urls(1))
        // When two workers in turn claim it and die (each lease's deadline
        // put in the past by hand: no wait, and nothing a loaded machine's
        // pauses could make expire early)
        let first = try #require(try await queue.claim(upTo: 1, worker: "dies-1").first)
        try await expireLease(of: first, in: queue)
        let again = try #require(try await queue.claim(upTo: 1, worker: "dies-2").first)
        #expect(again.attempt == 2)
        try await expireLease(of: again, in: queue)
        // Then the next sweep dead-letters it instead of handing it out a third time
        #expect(try await queue.claim(upTo: 1, worker: "alive").isEmpty)
        let status = try await queue.status(ofBatch: batch)
        #expect(status.dead == 1 && status.isFinished)
        #expect(try await queue.deadLetters().first?.error == "stalled")
        let kinds = try await EventStream(queue: queue).read(batch: batch, after: .beginning, timeout: .milliseconds(50), using: makeClient()).map(\.kind)
        #expect(kinds == [.started, .stalled, .started, .deadLettered, .batchCompleted])
    }

    @Test func aLeaseRenewalRecoversExpiredLeasesOfOtherWorkers() async throws {
        // Given a crashed worker's job, its lease expired
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1))
        let job = try #require(try await queue.claim(upTo: 1, worker: "crashed").first)
        try await expireLease(of: job, in: queue)
        #expect(try await queue.queuedCount() == 0)
        // When a busy worker (which never claims) renews its own leases
        _ = try await queue.renewLeases(of: [])
        // Then the crashed worker's job is queued again
        #expect(try await queue.queuedCount() == 1)
    }

    @Test func backoffDoublesWithJitterAndStopsAfterTheLastAttempt() {
        var policy = JobRetryPolicy()
        policy.baseDelay = .seconds(2)
        policy.maximumAttempts = 4
        #expect(policy.delay(afterAttempt: 1, random: { $0.lowerBound }) == .seconds(1))
        #expect(policy.delay(afterAttempt: 1, random: { $0.upperBound }) == .seconds(2))
        #expect(policy.delay(afterAttempt: 3, random: { $0.upperBound }) == .seconds(8))
        #expect(policy.delay(afterAttempt: 4) == nil)
        policy.maximumAttempts = 40
        #expect(policy.delay(afterAttempt: 30, random: { $0.upperBound }) == policy.maximumDelay)
    }

    /// Puts the deadline of `job`'s lease in the past, as if it had run out.
    private func expireLease(of job: Job, in queue: JobQueue) async throws {
        try await queue.client.send(["ZADD", queue.keys.leases, "XX", "1", job.id])
    }
}
