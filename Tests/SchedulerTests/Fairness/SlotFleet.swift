import Foundation
@testable import Scheduler

/// A fleet of job slots driven one job end at a time, as workers against a
/// slow origin whose every download takes as long: the oldest running job
/// ends, and its slot claims the next in the same call (finish.lua). Time is
/// counted in job ends, so nothing depends on a clock.
struct SlotFleet {
    let queue: JobQueue
    let worker = "fleet"
    /// Running jobs, oldest first.
    private(set) var running: [Job] = []
    /// The batch of every job claimed, in claim order.
    private(set) var claimedBatches: [String] = []

    /// Fills `slots` slots.
    init(queue: JobQueue, slots: Int) async throws {
        self.queue = queue
        running = try await queue.claim(upTo: slots, worker: worker)
        claimedBatches = running.map(\.batchID)
    }

    /// Ends the oldest running job and claims one in its slot; claims
    /// instead when no job runs. Returns whether anything ran.
    @discardableResult
    mutating func step() async throws -> Bool {
        guard !running.isEmpty else {
            let claimed = try await queue.claim(upTo: 1, worker: worker)
            running += claimed
            claimedBatches += claimed.map(\.batchID)
            return !claimed.isEmpty
        }
        let job = running.removeFirst()
        let next = try await queue.finish(job, outcome: .completed(source: "network", bytes: 1), worker: worker, claimingNext: 1)
        running += next
        claimedBatches += next.map(\.batchID)
        return true
    }

    /// Steps until batch `id` finished; returns the number of job ends it took.
    mutating func endsUntilFinished(batch id: String, atMost limit: Int) async throws -> Int {
        var ends = 0
        while try await !queue.status(ofBatch: id).isFinished, ends < limit {
            guard try await step() else { break }
            ends += 1
        }
        return ends
    }
}
