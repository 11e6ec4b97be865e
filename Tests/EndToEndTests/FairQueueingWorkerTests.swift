import Foundation
import Testing
import TestSupport

/// Issue 24 item 2's done-when with a real `warmer worker` and real Redis: a
/// small batch enqueued while a big one of the same priority holds every
/// slot finishes within twice its time alone. Downloads go to a
/// `GatedOrigin` that the test answers one tick at a time, each taking as
/// many ticks as the worker has slots (a slow origin), so the time is
/// counted in the worker's job ends, not in seconds.
@Suite(.serialized)
struct FairQueueingWorkerTests {
    private static let slots = 8
    /// 13 URLs: two rounds of 8 slots alone.
    private static let smallCount = 13

    /// Ticks from the small batch's enqueue to its last download's end:
    /// alone on an idle worker, or behind a 300-URL batch whose downloads
    /// fill every slot (started a tick apart).
    private func ticksOfTheSmallBatch(behindBigBatch: Bool, burst: String? = nil) async throws -> Int {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try Data(contentsOf: Origin.makeImage(TestEnvironment.uniqueName("fair"), width: 32, height: 24))
        let origin = try GatedOrigin(body: image)
        defer { origin.close() }
        let flags = burst.map { ["--group-burst", $0] } ?? []
        return try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: Self.slots, arguments: flags) { workers in
            var downloads = TickedDownloads(origin: origin, slots: Self.slots)
            if behindBigBatch {
                downloads.jobs = 300
                _ = try await queue.enqueue((0..<300).map { origin.url("/big/\($0).jpg") }, extra: flags + ["--batch", "big"])
                try await downloads.settle(staggered: true)
                for _ in 0..<12 { try await downloads.tick() }
            }
            // The small batch arrives while every slot is busy (or all are free)
            let start = downloads.now
            downloads.jobs += Self.smallCount
            _ = try await queue.enqueue((0..<Self.smallCount).map { origin.url("/small/\($0).jpg") }, extra: flags + ["--batch", "small"])
            try await downloads.settle()
            while downloads.ends.filter({ $0.path.hasPrefix("/small/") }).count < Self.smallCount, downloads.now < start + 200 {
                try await downloads.tick()
            }
            let last = try #require(downloads.ends.last { $0.path.hasPrefix("/small/") }, "\(workers.logs)")
            // (the worker saw them all complete)
            origin.openGates()
            let status = try await queue.waitUntilFinished(batch: "small", timeout: .seconds(60))
            #expect(status.completed == Self.smallCount, "\(status)")
            return last.tick - start
        }
    }

    @Test func aSmallBatchBehindABigOneOfTheSamePriorityFinishesWithinTwiceItsTimeAlone() async throws {
        // Given 8 slots: alone, the 13 downloads take two rounds (16 ticks)
        let alone = try await ticksOfTheSmallBatch(behindBigBatch: false)
        #expect(alone == 16)
        // When they arrive while a 300-URL batch holds every slot
        let shared = try await ticksOfTheSmallBatch(behindBigBatch: true)
        // Then the small batch takes the next 7 freed slots, then every
        // other one, and finishes within twice its time alone (27 ticks when
        // every claim goes as planned; with strict turns 34)
        #expect(shared <= 2 * alone, "behind the big batch \(shared) ticks, alone \(alone)")
    }

    @Test func withAGroupBurstOfZeroTheTurnsAreStrictAndTheSmallBatchTakesLonger() async throws {
        // (what fair queueing did before the head start: every other freed slot from the first)
        let shared = try await ticksOfTheSmallBatch(behindBigBatch: true, burst: "0")
        #expect(shared > 2 * 16, "behind the big batch \(shared) ticks")
    }
}
