import Foundation
import Testing
import TestSupport

/// A Python service written from docs/wire-format.md and docs/cache-layout.md
/// alone, with redis-py (scripts/integrator-check.py), against a real worker:
/// the wire contract as a client in another language reads it.
@Suite(.serialized)
struct IntegratorTests {
    @Test func aPythonProducerAndObserverFindEverythingWhereTheDocsSay() async throws {
        // Given two images and a URL that answers with an HTML page
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("py", count: 2, width: 300, height: 200)
        let page = try Origin.makeFile(TestEnvironment.uniqueName("page") + ".jpg", contents: NotAnImageTests.page)

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            // When the Python client sends a disk batch and a processed batch,
            // follows both streams and checks what the docs promise
            let script = TestEnvironment.repositoryRoot.appendingPathComponent("scripts/integrator-check.py")
            let run = try await runProcess("/usr/bin/env", [
                "python3", script.path, queue.redisURL, queue.name, cache.path,
            ] + images.map(\.url.absoluteString) + ["--not-an-image", try Origin.url(of: page).absoluteString])

            // Then it found nothing to complain about
            #expect(run.status == 0, "\(run.output)\n\(run.error)\n\(workers.logs)")
            #expect(run.output.contains(#""completed": "2""#), "\(run.output)")
            #expect(!run.output.contains("PROBLEM"), "\(run.output)")
        }
    }
}
