import Foundation
import RedisKit
import Testing
import TestSupport
@testable import Scheduler

/// What a lease renewal reports: a lease that expired or was taken over is
/// lost; a job its worker just finished (the finish crossed the renewal) is not.
///
/// A lease expires here on demand: its deadline in the `leases` sorted set
/// (what every sweep reads) is moved into the past, as the passing of its
/// duration would, so no test waits on Redis's clock or races it.
@Suite("Lease renewal")
struct LeaseRenewalTests {
    /// Moves `job`'s lease deadline into the past: the state a lease is in
    /// once its duration passed without a renewal.
    private func expireLease(of job: Job, in queue: JobQueue) async throws {
        let reply = try await queue.client.send(["ZADD", queue.keys.leases, "XX", "CH", "1", job.id])
        try #require(reply.integer == 1, "\(job.id) held no lease")
    }

    /// `job`'s lease deadline, ms since the epoch on Redis's clock (nil: none).
    private func leaseDeadline(of job: Job, in queue: JobQueue) async throws -> Int? {
        try await queue.client.send(["ZSCORE", queue.keys.leases, job.id]).string.flatMap { Double($0) }.map { Int($0) }
    }

    /// Redis's clock now, ms since the epoch.
    private func redisNow(_ queue: JobQueue) async throws -> Int {
        let time = try await queue.client.send(["TIME"]).array.compactMap { $0.string.flatMap(Int.init) }
        try #require(time.count == 2)
        return time[0] * 1000 + time[1] / 1000
    }

    @Test func aJobFinishedThroughItsLeaseIsNotReportedLost() async throws {
        // Given two claimed jobs, one of which its worker has just finished
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(2))
        let jobs = try await queue.claim(upTo: 2, worker: "w1")
        try #require(jobs.count == 2)
        try await queue.finish(jobs[0], outcome: .completed(source: "network", bytes: 1), worker: "w1")

        // When a renewal made before the finish was seen renews both
        let renewal = try await queue.renewLeases(of: jobs)

        // Then neither is lost, and the running one is still leased
        #expect(renewal.lost.isEmpty, "\(renewal)")
        #expect(try await queue.claim(upTo: 2, worker: "w2").isEmpty)
    }

    @Test func aJobReleasedOrRetriedThroughItsLeaseIsNotReportedLost() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(2))
        let jobs = try await queue.claim(upTo: 2, worker: "w1")
        try #require(jobs.count == 2)
        #expect(try await queue.release(jobs[0]))
        try await queue.finish(jobs[1], outcome: .failed(code: "http_503", message: "x", isTransient: true), worker: "w1")

        #expect(try await queue.renewLeases(of: jobs).lost.isEmpty)
    }

    @Test func anExpiredLeaseIsReportedLostBeforeAndAfterTheJobRunsElsewhere() async throws {
        // Given a job whose lease expired, recovered (stalled) and claimed by another worker
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1))
        let mine = try #require(try await queue.claim(upTo: 1, worker: "w1").first)
        try await expireLease(of: mine, in: queue)
        let theirs = try #require(try await queue.claim(upTo: 1, worker: "w2").first)
        #expect(theirs.id == mine.id && theirs.leaseToken != mine.leaseToken)

        // Then the first worker's renewal reports it lost, while the other runs it…
        #expect(try await queue.renewLeases(of: [mine]).lost == [mine.id])
        // …and after the other worker finished it
        try await queue.finish(theirs, outcome: .completed(source: "network", bytes: 1), worker: "w2")
        #expect(try await queue.renewLeases(of: [mine]).lost == [mine.id])
    }

    @Test func aRecoveredLeaseIsLostEvenBeforeAnyoneClaimsTheJobAgain() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1))
        let mine = try #require(try await queue.claim(upTo: 1, worker: "w1").first)
        try await expireLease(of: mine, in: queue)
        // A renewal of nothing sweeps expired leases: the job is queued again (stalled).
        _ = try await queue.renewLeases(of: [])
        #expect(try await queue.queuedCount() == 1)

        #expect(try await queue.renewLeases(of: [mine]).lost == [mine.id])
    }

    @Test func aRenewalOnAConnectionOfItsOwnExtendsTheLeases() async throws {
        // Given a claimed job with a 60 s lease
        let queue = try makeQueue { $0.leaseDuration = .seconds(60) }
        _ = try await queue.enqueue(urls: urls(1))
        let jobs = try await queue.claim(upTo: 1, worker: "w1")
        let job = try #require(jobs.first)

        // When, twice, its deadline passes and a thread of its own renews it
        // over its own connection before any sweep
        var lost: [String] = []
        for _ in 0..<2 {
            try await expireLease(of: job, in: queue)
            lost += try await withCheckedThrowingContinuation { continuation in
                Thread {
                    continuation.resume(with: Result { () throws -> [String] in
                        let connection = RedisConnection(url: queue.client.url, timeout: .seconds(5))
                        return try queue.renewLeases(of: jobs, on: connection).lost
                    })
                }.start()
            }
        }

        // Then it was never lost, its deadline is a lease ahead again, and nobody else can claim it
        #expect(lost.isEmpty)
        let deadline = try #require(try await leaseDeadline(of: job, in: queue))
        #expect(deadline > (try await redisNow(queue)) + 30_000, "deadline \(deadline)")
        #expect(try await queue.claim(upTo: 1, worker: "w2").isEmpty)
    }
}
