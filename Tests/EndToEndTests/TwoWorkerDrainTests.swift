import Foundation
import Scheduler
import Testing
import TestSupport

/// Acceptance 1: a batch enqueued with `warmer enqueue` and drained by two
/// worker processes sharing one cache folder.
@Suite(.serialized)
struct TwoWorkerDrainTests {
    @Test func twoWorkersDrainABatchIntoByteIdenticalFiles() async throws {
        // Given twelve ~115 KB images on the origin, served through /slow/:
        // nginx sends the first 100 KB at once and the rest a second later, so
        // each download lasts about a second and neither worker (3 slots
        // each) can drain the batch alone before the other claims its share.
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("drain", count: 12, width: 400, height: 400, slow: true)

        try await withWorkers(2, queue: queue, cacheDirectory: cache, concurrency: 3) { workers in
            // When the batch is enqueued through the CLI
            let batch = try await queue.enqueue(images.map(\.url))
            let status = try await queue.waitUntilFinished(batch: batch)

            // Then every job completed…
            #expect(status.total == 12)
            #expect(status.completed == 12, "\(status)\n\(workers.logs)")
            #expect(status.failed == 0 && status.dead == 0 && status.cancelled == 0)

            // …each cached file is byte for byte the origin's file…
            for image in images {
                let original = try image.contents()
                let cached = try? Data(contentsOf: cachedFile(for: image.url, in: cache))
                #expect(cached == original, "cache entry of \(image.url) differs from the origin")
            }

            // …both processes did part of the work…
            let events = try await queue.events(ofBatch: batch)
            let completed = events.filter { $0.kind == .completed }
            #expect(Set(completed.compactMap(\.jobID)).count == 12, "\(events.summary)")
            #expect(Set(completed.compactMap { $0.fields["worker"] }).count == 2,
                    "expected both workers to complete jobs:\n\(events.summary)")

            // …and the CLI agrees: `status` counts, `watch` exits 0, `cache get` returns the bytes.
            let printed = try await warmer(["status"] + queue.redisArguments + [batch])
            #expect(printed.status == 0, "\(printed)")
            let counters = try JSONSerialization.jsonObject(with: Data(printed.standardOutput.utf8)) as? [String: Any]
            #expect(counters?["completed"] as? Int == 12, "\(printed)")
            #expect(counters?["failed"] as? Int == 0, "\(printed)")

            let watch = try await warmer(["watch"] + queue.redisArguments + ["--batch", batch])
            #expect(watch.status == 0, "\(watch)")
            #expect(watch.outputLines.last?.contains("\"batchCompleted\"") == true, "\(watch)")

            let copy = cache.deletingLastPathComponent().appendingPathComponent(TestEnvironment.uniqueName("copy"))
            defer { try? FileManager.default.removeItem(at: copy) }
            let get = try await warmer(["cache", "get", "--cache-dir", cache.path, "-o", copy.path, images[0].url.absoluteString])
            #expect(get.status == 0, "\(get)")
            let original = try images[0].contents()
            #expect((try? Data(contentsOf: copy)) == original)
        }
    }
}
