import Foundation
import Scheduler
import Testing
import TestSupport

/// Acceptance 4: identical URLs in flight share one origin request (the queue
/// makes identical work one job; the pipeline shares in-flight downloads).
@Suite(.serialized)
struct CoalescingTests {
    @Test func twoIdenticalURLsInFlightCauseOneOriginRequest() async throws {
        // Given one ~115 KB image served through /slow/ (nginx sends 100 KB at
        // once and the rest a second later: the download lasts about a second)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try await Origin.makeImages("twice", count: 1, width: 400, height: 400, slow: true)[0]

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 4) { workers in
            // When one batch holds its URL twice
            let batch = try await queue.enqueue([image.url, image.url])
            let status = try await queue.waitUntilFinished(batch: batch)

            // Then both URLs count as completed…
            #expect(status.completed == 2, "\(status)\n\(workers.logs)")
            let events = try await queue.events(ofBatch: batch)
            let completed = events.filter { $0.kind == .completed }
            // …through one job, downloaded from the network…
            #expect(completed.count == 1, "\(events.summary)")
            #expect(completed.map { $0.fields["source"] } == ["network"], "\(events.summary)")
            let original = try image.contents()
            #expect(completed.allSatisfy { $0.bytes == Int64(original.count) }, "\(events.summary)")
            #expect((try? Data(contentsOf: cachedFile(for: image.url, in: cache))) == original)

            // …and nginx served the file once. (It logs a request when the
            // response is sent: wait for the line, then count.)
            let logged = await eventually { (try? Origin.requestCount(path: image.path, slow: true)) ?? 0 >= 1 }
            #expect(logged)
            #expect(try Origin.requestCount(path: image.path, slow: true) == 1)
        }
    }

    @Test func rawAndProcessedJobsForOneURLShareOneDownload() async throws {
        // Given one slow image (about a second to download)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try await Origin.makeImages("twice-kinds", count: 1, width: 400, height: 400, slow: true)[0]

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 4) { workers in
            // When two batches ask for different work on it at once: its raw
            // data, and a thumbnail (two jobs, since the work differs)
            let raw = try await queue.enqueue([image.url])
            let thumbnail = try await queue.enqueue([image.url], extra: ["--destination", "processed", "--thumbnail", "64"])
            let rawStatus = try await queue.waitUntilFinished(batch: raw)
            let thumbnailStatus = try await queue.waitUntilFinished(batch: thumbnail)

            // Then both complete…
            #expect(rawStatus.completed == 1 && thumbnailStatus.completed == 1,
                    "\(rawStatus) \(thumbnailStatus)\n\(workers.logs)")
            // …and the pipeline downloaded the file once for both
            let logged = await eventually { (try? Origin.requestCount(path: image.path, slow: true)) ?? 0 >= 1 }
            #expect(logged)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try Origin.requestCount(path: image.path, slow: true) == 1)
        }
    }
}
