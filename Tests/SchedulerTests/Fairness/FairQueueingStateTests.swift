import Foundation
import Testing
@testable import Scheduler

/// Every way a job enters or leaves the queue keeps the group queues, the
/// line of groups and their flights in step with `queue`, and a drained
/// queue keeps no group key.
@Suite("Fair queueing state")
struct FairQueueingStateTests {
    /// What must hold between two steps: the group queues hold exactly the
    /// jobs of `queue`, every group in line has a queued job, and every
    /// group's `active` is the number of its jobs running.
    private func expectInStep(_ queue: JobQueue, _ step: String) async throws {
        let keys = queue.keys
        let queued = try await queue.client.send(["ZCARD", keys.queue]).integer ?? -1
        var inGroups = 0
        for key in try await queue.client.send(["KEYS", keys.prefix + "group:*:queue"]).array.compactMap(\.string) {
            inGroups += try await queue.client.send(["ZCARD", key]).integer ?? 0
        }
        let counted = Int(try await queue.client.send(["HGET", keys.fairness, "queued"]).string ?? "0") ?? -1
        #expect(inGroups == queued && counted == queued, "\(step): queue \(queued), group queues \(inGroups), counter \(counted)")
        for group in try await queue.client.send(["ZRANGE", keys.groups, "0", "-1"]).array.compactMap(\.string) {
            #expect(try await queue.client.send(["ZCARD", keys.groupQueue(group)]).integer ?? 0 > 0, "\(step): \(group) in line with nothing queued")
        }
        let running = try await queue.client.send(["ZRANGE", keys.leases, "0", "-1"]).array.compactMap(\.string)
        var flights: [String: Int] = [:]
        for id in running {
            if let group = try await queue.client.send(["HGET", keys.job(id), "flight"]).string { flights[group, default: 0] += 1 }
        }
        for group in ["a", "b"] {
            let active = Int(try await queue.client.send(["HGET", keys.group(group), "active"]).string ?? "0") ?? -1
            #expect(active == flights[group, default: 0], "\(step): group \(group) active \(active), running \(flights[group, default: 0])")
        }
    }

    @Test func everyWayAJobEntersOrLeavesTheQueueKeepsTheGroupsInStep() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(10, "a"), batchID: "a")
        _ = try await queue.enqueue(urls: urls(10, "b"), priority: .low, batchID: "b")
        var claimed = try await queue.claim(upTo: 6, worker: "w")
        try await expectInStep(queue, "claim")
        _ = try await queue.cancel(batch: "a")
        try await expectInStep(queue, "cancel")
        _ = try await queue.setPriority(.high, ofBatch: "b")
        try await expectInStep(queue, "priority")
        let released = try #require(claimed.first { $0.batchID == "b" } ?? claimed.last)
        _ = try await queue.release(released)
        claimed.removeAll { $0.id == released.id }
        try await expectInStep(queue, "release")
        // Every lease expires: the next claim's housekeeping recovers the jobs (stalls)
        for job in claimed { try await queue.client.send(["ZADD", queue.keys.leases, "1", job.id]) }
        let afterStalls = try await queue.claim(upTo: 100, worker: "w")
        try await expectInStep(queue, "stalls and claim")
        for job in afterStalls {
            try await queue.finish(job, outcome: .failed(code: "http_404", message: "gone"), worker: "w")
        }
        try await expectInStep(queue, "failed")
        #expect(try await queue.retryDeadLetters() > 0)
        try await expectInStep(queue, "dead retry")
        for job in try await queue.claim(upTo: 100, worker: "w") {
            try await queue.finish(job, outcome: .completed(source: "disk", bytes: 1), worker: "w")
        }
        try await expectInStep(queue, "drained")
        // Then nothing of the groups is left but the counter at 0
        #expect(try await queue.client.send(["KEYS", queue.keys.prefix + "group*"]).array.isEmpty)
        #expect(try await queue.client.send(["HGET", queue.keys.fairness, "queued"]).string == "0")
    }

    @Test func aJobQueuedWithoutAGroupByAnOlderVersionIsAdoptedByItsFirstBatchsGroup() async throws {
        // Given a job written as a version before groups wrote it: in `queue` only
        let queue = try makeQueue()
        let keys = queue.keys
        try await queue.client.send(["HSET", keys.job("1"), "url", "https://images.example/old.jpg", "b:old", "1",
                                     "priority", "normal", "destination", "disk", "state", "queued", "aging", "60000",
                                     "score", "1000", "enqueuedAt", "1"])
        try await queue.client.send(["ZADD", keys.queue, "1000", "1"])
        // When a worker claims
        let job = try #require(try await queue.claim(upTo: 1, worker: "w").first)
        // Then it gets the job, counted in the flight of the batch's group
        #expect(job.id == "1")
        #expect(try await queue.client.send(["HGET", keys.job("1"), "group"]).string == "old")
        #expect(try await queue.client.send(["HGET", keys.group("old"), "active"]).string == "1")
    }

    @Test func anIntakeDocumentsGroupIsTheGroupOfItsJobs() async throws {
        let queue = try makeQueue()
        try await queue.client.send(["RPUSH", queue.keys.intake, #"{"v":1,"batch":"d","group":"tenant-a","urls":["https://images.example/d.jpg"]}"#])
        let job = try #require(try await queue.claim(upTo: 1, worker: "w").first)
        #expect(try await queue.client.send(["HGET", queue.keys.job(job.id), "group"]).string == "tenant-a")
        #expect(try await queue.client.send(["HGET", queue.keys.group("tenant-a"), "active"]).string == "1")
    }
}
