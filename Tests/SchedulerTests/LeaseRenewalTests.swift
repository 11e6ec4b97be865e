import Foundation
import RedisKit
import Testing
import TestSupport
@testable import Scheduler

/// What a lease renewal reports: a lease that expired or was taken over is
/// lost; a job its worker just finished (the finish crossed the renewal) is not.
@Suite("Lease renewal")
struct LeaseRenewalTests {
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
        // Given a job whose 1 s lease expired, recovered (stalled) and claimed by another worker
        let queue = try makeQueue { $0.leaseDuration = .seconds(1) }
        _ = try await queue.enqueue(urls: urls(1))
        let mine = try #require(try await queue.claim(upTo: 1, worker: "w1").first)
        try await Task.sleep(for: .milliseconds(1200))
        let theirs = try #require(try await queue.claim(upTo: 1, worker: "w2").first)
        #expect(theirs.id == mine.id && theirs.leaseToken != mine.leaseToken)

        // Then the first worker's renewal reports it lost, while the other runs it…
        #expect(try await queue.renewLeases(of: [mine]).lost == [mine.id])
        // …and after the other worker finished it
        try await queue.finish(theirs, outcome: .completed(source: "network", bytes: 1), worker: "w2")
        #expect(try await queue.renewLeases(of: [mine]).lost == [mine.id])
    }

    @Test func aRecoveredLeaseIsLostEvenBeforeAnyoneClaimsTheJobAgain() async throws {
        let queue = try makeQueue { $0.leaseDuration = .seconds(1) }
        _ = try await queue.enqueue(urls: urls(1))
        let mine = try #require(try await queue.claim(upTo: 1, worker: "w1").first)
        try await Task.sleep(for: .milliseconds(1200))
        // A renewal of nothing sweeps expired leases: the job is queued again (stalled).
        _ = try await queue.renewLeases(of: [])
        #expect(try await queue.queuedCount() == 1)

        #expect(try await queue.renewLeases(of: [mine]).lost == [mine.id])
    }

    @Test func aRenewalOnAConnectionOfItsOwnExtendsTheLeases() async throws {
        // Given a job with a 1 s lease
        let queue = try makeQueue { $0.leaseDuration = .seconds(1) }
        _ = try await queue.enqueue(urls: urls(1))
        let jobs = try await queue.claim(upTo: 1, worker: "w1")
        try #require(jobs.count == 1)

        // When a thread of its own renews it over its own connection, past the first deadline
        let lost: [String] = try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { () throws -> [String] in
                    let connection = RedisConnection(url: queue.client.url, timeout: .seconds(5))
                    var lost: [String] = []
                    for _ in 0..<4 {
                        Thread.sleep(forTimeInterval: 0.3)
                        lost += try queue.renewLeases(of: jobs, on: connection).lost
                    }
                    return lost
                })
            }.start()
        }

        // Then it was never lost and nobody else can claim it
        #expect(lost.isEmpty)
        #expect(try await queue.claim(upTo: 1, worker: "w2").isEmpty)
    }
}
