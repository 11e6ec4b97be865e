import Foundation
import Testing
import TestSupport

/// Issue 24, item 3, end to end: a real worker completes URLs, and a batch
/// enqueued by `warmer enqueue --fresh-for` counts them as completed without
/// fetching them again, even on a worker with a cache of its own (a fleet
/// of hosts with local caches): the origin's access log shows no second
/// request. Without `--fresh-for` that worker fetches them again.
@Suite struct RecentlyWarmedWorkerTests {
    /// Deletes the tests' cache folders: one per worker, as on hosts with local caches.
    private static func remove(_ folders: URL...) {
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func aBatchWithFreshForDoesNotFetchWhatAnyWorkerWarmedRecently() async throws {
        // Given a worker that warmed five URLs of one origin image into its cache
        let queue = try QueueProbe()
        let (firstCache, secondCache) = (try TestEnvironment.temporaryDirectory("cache"), try TestEnvironment.temporaryDirectory("cache"))
        defer { Self.remove(firstCache, secondCache) }
        let file = try Origin.makeImage(TestEnvironment.uniqueName("recent"), width: 64, height: 48)
        let base = try Origin.url(of: file).absoluteString
        let urls = (0..<6).compactMap { URL(string: base + "?n=\($0)") }
        try await withWorkers(1, queue: queue, cacheDirectory: firstCache) { workers in
            let first = try await queue.enqueue(Array(urls.prefix(5)))
            #expect(try await queue.waitUntilFinished(batch: first).completed == 5, "\(workers.logs)")
        }
        #expect(try OriginTraffic(path: file.lastPathComponent).times.count == 5)

        try await withWorkers(1, queue: queue, cacheDirectory: secondCache) { workers in
            // When the five and a sixth are enqueued again with --fresh-for an hour, for a worker with another cache
            let second = try await queue.enqueue(urls, extra: ["--fresh-for", "3600"])
            let status = try await queue.waitUntilFinished(batch: second)

            // Then the batch completes with five recent URLs and one job
            #expect(status.total == 6 && status.completed == 6 && status.recent == 5, "\(status)\n\(workers.logs)")
            let completed = try await queue.events(ofBatch: second).filter { $0.kind == .completed }
            #expect(completed.filter { $0.fields["source"] == "recent" && $0.jobID == nil }.count == 5, "\(completed)")
            #expect(completed.filter { $0.jobID != nil }.map(\.url) == [urls[5].absoluteString])
            // and the origin served only the sixth
            #expect(try OriginTraffic(path: file.lastPathComponent).times.count == 6)

            // while without --fresh-for this worker fetches a warmed URL again
            let third = try await queue.enqueue(Array(urls.prefix(1)))
            #expect(try await queue.waitUntilFinished(batch: third).recent == 0)
            #expect(try OriginTraffic(path: file.lastPathComponent).times.count == 7)
        }
    }

    @Test func aLargeDocumentParsedByTheWorkerHonoursFreshFor() async throws {
        // Given 250 URLs warmed by one worker (long ones: their document is over 32 KiB, parsed by the worker)
        let queue = try QueueProbe()
        let (firstCache, secondCache) = (try TestEnvironment.temporaryDirectory("cache"), try TestEnvironment.temporaryDirectory("cache"))
        defer { Self.remove(firstCache, secondCache) }
        let file = try Origin.makeImage(TestEnvironment.uniqueName("recent-large"), width: 32, height: 32)
        let base = try Origin.url(of: file).absoluteString
        let padding = String(repeating: "p", count: 100)
        let urls = (0..<251).compactMap { URL(string: base + "?n=\($0)&pad=\(padding)") }
        try await withWorkers(1, queue: queue, cacheDirectory: firstCache) { workers in
            let first = try await queue.enqueue(Array(urls.prefix(250)))
            #expect(try await queue.waitUntilFinished(batch: first, timeout: .seconds(120)).completed == 250, "\(workers.logs)")
        }

        // When a worker with a cache of its own gets them and one more as an intake document with freshFor
        let list = urls.map { "\"\($0.absoluteString)\"" }.joined(separator: ",")
        let document = #"{"v":1,"batch":"large-fresh","freshFor":3600,"urls":[\#(list)]}"#
        #expect(document.utf8.count > 32 * 1024)
        try await withWorkers(1, queue: queue, cacheDirectory: secondCache) { workers in
            try await queue.send(["RPUSH", queue.queue.keys.intake, document])
            let status = try await queue.waitUntilFinished(batch: "large-fresh", timeout: .seconds(120))

            // Then the 250 count as recent and the origin served only the new one
            #expect(status.total == 251 && status.completed == 251 && status.recent == 250, "\(status)\n\(workers.logs)")
        }
        #expect(try OriginTraffic(path: file.lastPathComponent).times.count == 251)
    }
}
