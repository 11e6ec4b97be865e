import Foundation
import Scheduler
import Testing
import TestSupport

/// A worker whose CPU is saturated by its own processed jobs keeps every
/// lease it holds: no job is reported lost, stalls or runs twice.
@Suite(.serialized)
struct LeaseKeepingUnderLoadTests {
    @Test func aWorkerSaturatedByItsOwnImageWorkKeepsEveryLease() async throws {
        // Given a 4-megapixel JPEG served under 24 URLs (a query string
        // each: 24 jobs, no coalescing) and a small one under 168, all to be
        // blurred and re-encoded: heavy jobs that keep every core busy for
        // several lease durations, and light ones finishing several times a
        // second meanwhile…
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let large = try await Origin.makeImages("lease-load-large", count: 1, width: 2400, height: 1800)[0]
        let small = try await Origin.makeImages("lease-load-small", count: 1, width: 320, height: 240)[0]
        let urls = try (0..<192).map { index in
            let image = index % 8 == 0 ? large : small
            return try #require(URL(string: image.url.absoluteString + "?n=\(index)"))
        }

        // …and one worker with the shortest lease (3 s, renewed within
        // seconds) and 48 slots for a machine with a few cores, so its
        // decode, blur and encode threads keep every core busy
        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 48, gracePeriod: 30,
                              arguments: ["--lease-duration", "3", "--image-threads", "6"]) { workers in
            // When the batch runs to its end
            let batch = try await queue.enqueue(urls, extra: ["--destination", "processed", "--blur", "15", "--format", "webp"])
            let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(900))

            // Then every job completed, once, and none stalled or was reported lost
            let events = try await queue.events(ofBatch: batch)
            #expect(status.completed == urls.count, "\(status)\n\(workers.logs)")
            let completed = events.filter { $0.kind == .completed }.compactMap(\.jobID)
            #expect(completed.count == urls.count && Set(completed).count == urls.count, "\(events.summary)")
            let started = events.filter { $0.kind == .started }
            #expect(started.count == urls.count, "a job started more than once:\n\(events.summary)")
            #expect(!events.contains { $0.kind == .stalled }, "\(events.summary)")
            let log = workers[0].log
            #expect(!log.contains("leases lost") && !log.contains("lease lost"), "the worker lost leases:\n\(workers.logs)")

            // …while the lease keeper renewed all along (its summary comes at the stop)
            workers[0].requestStop()
            let stopped = await workers[0].waitForExit(margin: .seconds(30))
            #expect(stopped?.exited == true && stopped?.status == 0, "\(workers.logs)")
            let summary = workers[0].log.split(separator: "\n").first { $0.contains("lease keeper stopped") }
            #expect(summary.map { !$0.contains("renewals=0 ") } == true, "no lease keeper summary:\n\(workers.logs)")
        }
    }
}
