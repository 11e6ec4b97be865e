import Foundation
import Testing
@testable import Scheduler

/// Jobs of one priority are served round-robin across groups (a batch, or a
/// producer's `group`), by weight, within each group's in-flight limit.
@Suite("Fair queueing")
struct FairQueueingTests {
    /// Job ends (a slow origin's downloads, all as long) a 50-URL batch
    /// takes to finish on a fleet of 8 slots — alone, or enqueued while a
    /// 2,000-URL batch of the same priority runs.
    private func endsOfTheSmallBatch(behindBigBatch: Bool) async throws -> Int {
        let queue = try makeQueue()
        var fleet: SlotFleet
        if behindBigBatch {
            _ = try await queue.enqueue(urls: urls(2_000, "big"), batchID: "big")
            fleet = try await SlotFleet(queue: queue, slots: 8)
            for _ in 0..<100 { try await fleet.step() }
            _ = try await queue.enqueue(urls: urls(50, "small"), batchID: "small")
        } else {
            _ = try await queue.enqueue(urls: urls(50, "small"), batchID: "small")
            fleet = try await SlotFleet(queue: queue, slots: 8)
        }
        return try await fleet.endsUntilFinished(batch: "small", atMost: 5_000)
    }

    @Test func aSmallBatchEnqueuedBehindABigOneOfTheSamePriorityFinishesWithinTwiceItsTimeAlone() async throws {
        // Given a 2,000-URL batch running on 8 slots, and a 50-URL batch of
        // the same priority enqueued after 100 of its jobs ended
        let alone = try await endsOfTheSmallBatch(behindBigBatch: false)
        let shared = try await endsOfTheSmallBatch(behindBigBatch: true)
        // Then the small batch shares the slots half and half: about twice
        // its time alone (the claims interleave one for one), not behind
        // the 1,900 jobs the big batch has left
        #expect(alone == 50)
        #expect(shared <= 2 * alone + 2 * 8 + 8, "the small batch took \(shared) job ends (alone: \(alone))")
    }

    @Test func claimsAlternateBetweenTheGroupsOfAPriorityOnceTheQueueIsServing() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(20, "a"), batchID: "a")
        var fleet = try await SlotFleet(queue: queue, slots: 1)
        _ = try await queue.enqueue(urls: urls(20, "b"), batchID: "b")
        for _ in 0..<10 { try await fleet.step() }
        // (b's turn comes at a's virtual time: the tie goes to the name first in order)
        let alternating: [String] = Array(repeating: ["a", "b"], count: 5).flatMap { $0 }
        #expect(fleet.claimedBatches == ["a"] + alternating)
    }

    @Test func aBatchQueuedBeforeTheFirstClaimWaitsAtMostTheBurstBehindAnOlderOne() async throws {
        // Given two batches queued while nothing claims (a paused queue, no
        // worker yet), the second some milliseconds after the first
        let queue = try makeQueue { $0.groupBurst = 8 }
        _ = try await queue.enqueue(urls: urls(40, "a"), batchID: "a")
        // (20 ms later on the queue clock, in µs: the arrival stamp of the next job)
        let stamp = Int(try await queue.client.send(["GET", queue.keys.clock]).string ?? "0") ?? 0
        try await queue.client.send(["SET", queue.keys.clock, String(stamp + 20_000)])
        _ = try await queue.enqueue(urls: urls(20, "b"), batchID: "b")
        // When one slot starts claiming
        var fleet = try await SlotFleet(queue: queue, slots: 1)
        for _ in 0..<18 { try await fleet.step() }
        // Then the older goes first for the burst (and its tie), then they
        // alternate (before: "a" went on until its turns caught up with
        // "b"'s arrival in µs, some 20,000 claims)
        let expected = Array(repeating: "a", count: 9) + Array(repeating: ["b", "a"], count: 5).flatMap { $0 }
        #expect(fleet.claimedBatches == expected)
    }

    @Test func batchesNamingTheSameGroupShareOneTurn() async throws {
        // Given two batches of tenant "t" and one batch of its own, all queued while the queue serves
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(10, "x"), batchID: "x", group: "t")
        var fleet = try await SlotFleet(queue: queue, slots: 1)
        _ = try await queue.enqueue(urls: urls(10, "y"), batchID: "y", group: "t")
        _ = try await queue.enqueue(urls: urls(10, "z"), batchID: "z")
        for _ in 0..<8 { try await fleet.step() }
        // Then "z" gets every other claim; "t"'s batches share the rest, FIFO within the group
        let claims = fleet.claimedBatches
        #expect(claims.filter { $0 == "z" }.count == 4, "\(claims)")
        #expect(claims.filter { $0 != "z" } == Array(repeating: "x", count: 5), "\(claims)")
    }

    @Test func aGroupOfWeightThreeGetsThreeClaimsForEachOfAWeightOneGroup() async throws {
        let queue = try makeQueue()
        try await queue.setGroup("heavy", weight: 3)
        _ = try await queue.enqueue(urls: urls(100, "light"), batchID: "light")
        var fleet = try await SlotFleet(queue: queue, slots: 1)
        _ = try await queue.enqueue(urls: urls(100, "heavy"), batchID: "heavy")
        for _ in 0..<80 { try await fleet.step() }
        let claims = fleet.claimedBatches.dropFirst()
        #expect(claims.filter { $0 == "heavy" }.count == 60, "\(claims)")
    }

    @Test func aGroupAtItsInFlightLimitWaitsUntilOneOfItsJobsEnds() async throws {
        // Given group "capped" limited to 2 jobs in flight, fleet-wide
        let queue = try makeQueue()
        try await queue.setGroup("capped", maxInFlight: 2)
        _ = try await queue.enqueue(urls: urls(10, "capped"), batchID: "capped")
        _ = try await queue.enqueue(urls: urls(10, "other"), batchID: "other")
        // When 6 slots claim
        let first = try await queue.claim(upTo: 6, worker: "w")
        // Then only 2 of its jobs run; the other slots serve the other group
        #expect(first.filter { $0.batchID == "capped" }.count == 2)
        #expect(first.count == 6)
        // And while both run, no slot takes a third
        #expect(try await queue.claim(upTo: 10, worker: "w").allSatisfy { $0.batchID == "other" })
        // When one of them ends, its slot may take the next
        let capped = try #require(first.first { $0.batchID == "capped" })
        let next = try await queue.finish(capped, outcome: .completed(source: "disk", bytes: 1), worker: "w", claimingNext: 1)
        #expect(next.map(\.batchID) == ["capped"])
    }

    @Test func aHigherPriorityGroupGoesFirstAndAgingStillComparesWaitingTimes() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(5, "normal"), batchID: "normal")
        var fleet = try await SlotFleet(queue: queue, slots: 1)
        _ = try await queue.enqueue(urls: urls(2, "high"), priority: .high, batchID: "high")
        for _ in 0..<3 { try await fleet.step() }
        #expect(fleet.claimedBatches == ["normal", "high", "high", "normal"])
    }

    @Test func aLimitOfZeroHoldsAGroupBackUntilItIsLifted() async throws {
        let queue = try makeQueue()
        try await queue.setGroup("held", maxInFlight: 0)
        _ = try await queue.enqueue(urls: urls(3, "held"), batchID: "held")
        #expect(try await queue.claim(upTo: 3, worker: "w").isEmpty)
        #expect(try await queue.queuedCount() == 3)
        try await queue.setGroup("held")
        #expect(try await queue.claim(upTo: 3, worker: "w").count == 3)
    }

    @Test func invalidGroupsWeightsAndLimitsAreRefused() async throws {
        let queue = try makeQueue()
        for call in [{ try await queue.setGroup("has space") }, { try await queue.setGroup("g", weight: 0) },
                     { try await queue.setGroup("g", weight: 1_001) }, { try await queue.setGroup("g", maxInFlight: -1) }] {
            await #expect(throws: SchedulerError.self) { try await call() }
        }
        await #expect(throws: SchedulerError.invalidGroup("a:b")) {
            _ = try await queue.enqueue(urls: urls(1), group: "a:b")
        }
    }
}
