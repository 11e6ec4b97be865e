import Foundation
@testable import Scheduler

/// A fleet of job slots driven one job end at a time, as workers against a
/// slow origin whose every download takes as long: the oldest running job
/// ends, and its slot claims the next in the same call (finish.lua). Time is
/// counted in job ends, so nothing depends on a clock.
///
/// It also keeps a clock of *ticks*: every job takes `duration` ticks (the
/// number of slots unless given), so a fleet whose slots started one tick
/// apart (`staggered`) ends one job a tick, as a busy fleet does, and an
/// idle slot lets ticks pass without ends — what the ends alone cannot
/// count.
struct SlotFleet {
    let queue: JobQueue
    let worker = "fleet"
    /// Ticks a job takes.
    let duration: Int
    /// Running jobs with the tick each ends at, oldest first (the first ends next).
    private var running: [(job: Job, end: Int)] = []
    /// The batch of every job claimed, in claim order.
    private(set) var claimedBatches: [String] = []
    /// The tick of the last job end (or claim when none ran).
    private(set) var now = 0

    /// Fills `slots` slots at tick 0; with `staggered`, one slot a tick
    /// instead, as if they had been running for a while, so that from then on
    /// one job ends a tick.
    init(queue: JobQueue, slots: Int, duration: Int? = nil, staggered: Bool = false) async throws {
        self.queue = queue
        self.duration = duration ?? slots
        let claimed = try await queue.claim(upTo: slots, worker: worker)
        for (index, job) in claimed.enumerated() {
            running.append((job, (staggered ? index + 1 : self.duration)))
        }
        claimedBatches = claimed.map(\.batchID)
    }

    /// Ends the oldest running job and claims one in its slot; claims
    /// instead when no job runs. Returns whether anything ran.
    @discardableResult
    mutating func step() async throws -> Bool {
        guard !running.isEmpty else {
            let claimed = try await queue.claim(upTo: 1, worker: worker)
            running += claimed.map { ($0, now + duration) }
            claimedBatches += claimed.map(\.batchID)
            return !claimed.isEmpty
        }
        let (job, end) = running.removeFirst()
        now = end
        let next = try await queue.finish(job, outcome: .completed(source: "network", bytes: 1), worker: worker, claimingNext: 1)
        running += next.map { ($0, now + duration) }
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

    /// Steps until batch `id` finished; returns the ticks it took from now
    /// (at most `limit` job ends).
    mutating func ticksUntilFinished(batch id: String, atMost limit: Int) async throws -> Int {
        let start = now
        _ = try await endsUntilFinished(batch: id, atMost: limit)
        return now - start
    }
}
