import Foundation
import Scheduler
import Testing
import TestSupport

/// Acceptance 5: jobs start by priority, FIFO within a priority.
@Suite(.serialized)
struct PriorityTests {
    @Test func aHighPriorityBatchStartsBeforeEarlierLowOnesWhichStartInEnqueueOrder() async throws {
        // Given, with no worker running, five low-priority jobs and then one high-priority job
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let low = try await Origin.makeImages("low", count: 5)
        let high = try await Origin.makeImages("high", count: 1)[0]
        let lowBatch = try await queue.enqueue(low.map(\.url), priority: "low")
        let highBatch = try await queue.enqueue([high.url], priority: "high")
        #expect(try await queue.queue.queuedCount() == 6)

        // When one worker with one slot drains the queue
        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1) { workers in
            let lowStatus = try await queue.waitUntilFinished(batch: lowBatch)
            let highStatus = try await queue.waitUntilFinished(batch: highBatch)
            #expect(lowStatus.completed == 5, "\(lowStatus)\n\(workers.logs)")
            #expect(highStatus.completed == 1, "\(highStatus)\n\(workers.logs)")
        }

        // Then the queue-wide stream shows the high job started first, then the low ones in enqueue order
        let started = try await queue.queueEvents().filter { $0.kind == .started }.compactMap(\.url)
        #expect(started == [high.url.absoluteString] + low.map(\.url.absoluteString),
                "start order:\n\(started.joined(separator: "\n"))")
    }
}
