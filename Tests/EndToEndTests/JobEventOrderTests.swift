import Foundation
import Scheduler
import Testing
import TestSupport

/// Acceptance 2: the lifecycle events of every job arrive in order.
@Suite(.serialized)
struct JobEventOrderTests {
    @Test func eachJobsEventsGoStartedThenProgressThenCompleted() async throws {
        // Given two quick images and one ~260 KB image served through /slow/
        // (nginx sends 100 KB at once, then 100 KB a second: about 2 s of
        // download, several 250 ms progress intervals)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let quick = try await Origin.makeImages("order", count: 2)
        let slow = try await Origin.makeImages("order-slow", count: 1, width: 600, height: 600, slow: true)[0]
        let slowSize = try slow.contents().count
        try #require(slowSize > 200_000, "the slow image must take two seconds at 100 KB/s")

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 4) { workers in
            // When a worker runs the batch
            let batch = try await queue.enqueue(quick.map(\.url) + [slow.url])
            let status = try await queue.waitUntilFinished(batch: batch)
            #expect(status.completed == 3, "\(status)\n\(workers.logs)")

            // Then, in the batch's stream (XREAD returns entries in the order
            // they were added), each job has exactly one `started`
            // first, only `progress` in between, and exactly one `completed` last
            let events = try await queue.events(ofBatch: batch)
            let jobEvents = events.filter { $0.jobID != nil }
            let byJob = Dictionary(grouping: jobEvents, by: { $0.jobID! })
            #expect(byJob.count == 3, "\(events.summary)")
            for (job, sequence) in byJob {
                let kinds = sequence.map(\.kind)
                #expect(kinds.first == .started, "job \(job): \(kinds)")
                #expect(kinds.last == .completed, "job \(job): \(kinds)")
                #expect(kinds.count >= 2 && kinds.dropFirst().dropLast().allSatisfy { $0 == .progress },
                        "job \(job): \(kinds)")
            }
            // The batch's own summary comes after every job event.
            #expect(events.last?.kind == .batchCompleted, "\(events.summary)")

            // And the slow job reported progress with growing byte counts, up to its size
            let slowEvents = jobEvents.filter { $0.url == slow.url.absoluteString }
            let progress = slowEvents.filter { $0.kind == .progress }.compactMap(\.bytes)
            #expect(progress.count >= 1, "no progress for the slow job:\n\(slowEvents.summary)")
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 < $1 }, "progress bytes: \(progress)")
            #expect(progress.allSatisfy { $0 > 0 && $0 <= Int64(slowSize) }, "progress bytes: \(progress) of \(slowSize)")
            #expect(slowEvents.last?.bytes == Int64(slowSize), "\(slowEvents.summary)")
            #expect(slowEvents.last?.fields["source"] == "network")
        }
    }
}
