import Foundation
import Scheduler
import Testing
import TestSupport

/// Issue 24, item 5: a document becomes jobs a slice per claim, and what is
/// not yet jobs waits in Redis, not in a worker. A worker that dies between
/// two slices loses nothing: the next claim of any worker goes on, and the
/// batch counts every URL exactly once.
@Suite(.serialized)
struct HalfExpandedDocumentTests {
    @Test func aRealWorkerFinishesADocumentAnotherClaimLeftHalfExpandedCountingEachURLOnce() async throws {
        // Given a 600-URL document (one image under 600 queries: 600 cache keys) pushed with a plain RPUSH
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try #require(try await Origin.makeImages("half-expanded", count: 1).first)
        let urls = (0..<600).map { "\(image.url.absoluteString)?n=\($0)" }
        let document = try JSONSerialization.data(withJSONObject: ["v": 1, "batch": "half", "urls": urls] as [String: Any])
        try await queue.send(["RPUSH", queue.queue.keys.intake, String(decoding: document, as: UTF8.self)])

        // and claims that staged it and made its first two slices, then went away (on a paused queue: they took no job)
        // (whole slices of 100 a claim, whatever the time: the test counts claims)
        var wholeSlices = JobQueue.Configuration()
        wholeSlices.sliceBudget = .zero
        let gone = try JobQueue(client: queue.queue.client, name: queue.name, configuration: wholeSlices)
        try await queue.queue.pause()
        for _ in 0..<3 { _ = try await gone.claim(upTo: 1, worker: "gone") }
        try await queue.queue.resume()
        #expect(try await queue.queue.statistics().staged == 400)
        #expect(try await queue.queue.queuedCount() == 200)
        #expect(try await queue.queue.status(ofBatch: "half").total == 600)

        // When a real worker runs
        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 8) { workers in
            let status = try await queue.waitUntilFinished(batch: "half")

            // Then every URL became one job that completed once, and nothing is left staged
            #expect(status.total == 600 && status.completed == 600, "\(status)\n\(workers.logs)")
            #expect(status.failed == 0 && status.dead == 0 && status.cancelled == 0)
            let events = try await queue.events(ofBatch: "half")
            let completed = events.filter { $0.kind == .completed }.compactMap(\.url)
            #expect(completed.count == 600 && Set(completed) == Set(urls), "\(events.summary)")
            #expect(events.filter { $0.kind == .batchCompleted }.count == 1)
            #expect(try await queue.queue.statistics().staged == 0)
        }
    }
}
