import Foundation
import Scheduler
import Testing
import TestSupport

/// The loading layer seen from the `warmer` executable: HTTP cache mode and
/// download retries, against the fault-injecting origin.
@Suite(.serialized)
struct LoadingTests {
    @Test func warmInHTTPCacheModeRevalidatesAStaleEntryWithoutDownloadingIt() async throws {
        // Given an image the origin marks `no-cache` (always revalidate), with an ETag
        let name = TestEnvironment.uniqueName("http-mode")
        let file = try Origin.makeImage(name)
        let id = TestEnvironment.uniqueName("rev")
        let url = try FaultOrigin.url(file: file.lastPathComponent, ["cc": "no-cache", "etag": "auto", "id": id])
        let folder = try TestEnvironment.temporaryDirectory("http-mode")
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("urls.txt")
        try Data((url.absoluteString + "\n").utf8).write(to: list)
        let arguments = ["warm", "--cache-mode", "http", "--cache-dir", folder.appendingPathComponent("cache").path, list.path]
        let size = try Data(contentsOf: file).count

        // When warm runs twice
        let first = try await warmer(arguments)
        let second = try await warmer(arguments)

        // Then the first run downloads it and the second is answered by a 304
        #expect(first.status == 0 && first.outputLines.contains("ok network \(size) \(url.absoluteString)"), "\(first)")
        #expect(second.status == 0 && second.outputLines.contains("ok revalidated \(size) \(url.absoluteString)"), "\(second)")
        let logged = await eventually { ((try? FaultOrigin.requests(id: id).count) ?? 0) >= 2 }
        #expect(logged)
        let requests = try FaultOrigin.requests(id: id)
        #expect(requests.map(\.status) == [200, 304])
        #expect(requests.last?.headers["if-none-match"]?.isEmpty == false)
        #expect(requests.last?.bytes == 0)
    }

    @Test func aWorkerRetriesA503AndPublishesTheRetry() async throws {
        // Given an image whose first request fails with 503
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("retry-cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let file = try Origin.makeImage(TestEnvironment.uniqueName("retry"))
        let id = TestEnvironment.uniqueName("retry")
        let url = try FaultOrigin.url(file: file.lastPathComponent, ["fail": "503", "id": id])

        try await withWorkers(queue: queue, cacheDirectory: cache) { workers in
            // When a batch holds it
            let batch = try await queue.enqueue([url])
            let status = try await queue.waitUntilFinished(batch: batch)

            // Then the job completes after a second attempt
            #expect(status.completed == 1, "\(status)\n\(workers.logs)")
            let events = try await queue.events(ofBatch: batch)
            let retry = try #require(events.first { $0.kind == .retrying }, "\(events.summary)")
            #expect(retry.fields["download_attempt"] == "1")
            #expect(retry.fields["error"] == "http_503")
            #expect(retry.fields["message"]?.isEmpty == false)
            #expect(Int(retry.fields["retry_in_ms"] ?? "") ?? -1 >= 0)
            #expect((try? Data(contentsOf: cachedFile(for: url, in: cache))) == (try Data(contentsOf: file)))
        }
        let logged = await eventually { ((try? FaultOrigin.requests(id: id).count) ?? 0) >= 2 }
        #expect(logged)
        #expect(try FaultOrigin.requests(id: id).map(\.status) == [503, 200])
    }
}
