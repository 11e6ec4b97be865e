import Foundation
import Scheduler
import Testing
import TestSupport

/// A disk job whose URL answers with something that is not an image (a
/// soft 404, a login page, a directory listing) fails as `not_an_image`
/// and stores nothing, unless the worker accepts non-images.
@Suite(.serialized)
struct NotAnImageTests {
    static let page = Data("<!DOCTYPE html><html><body>Sign in to continue</body></html>\n".utf8)

    @Test func anHTMLPageFailsAsNotAnImageAndIsNotStored() async throws {
        // Given a URL whose answer is a 200 HTML page, next to a real image
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let page = try Origin.makeFile(TestEnvironment.uniqueName("login") + ".jpg", contents: Self.page)
        let pageURL = try Origin.url(of: page)
        let images = try await Origin.makeImages("beside-page", count: 1)

        try await withWorkers(queue: queue, cacheDirectory: cache) { workers in
            // When a batch asks for both
            let batch = try await queue.enqueue([pageURL, images[0].url])
            let status = try await queue.waitUntilFinished(batch: batch)

            // Then the page fails for good as not_an_image, with how it begins; the image completes
            #expect(status.completed == 1 && status.failed == 1, "\(status)\n\(workers.logs)")
            let events = try await queue.events(ofBatch: batch)
            let failed = try #require(events.first { $0.kind == .failed }, "\(events.summary)")
            #expect(failed.url == pageURL.absoluteString)
            #expect(failed.fields["error"] == "not_an_image", "\(failed.fields)")
            #expect(failed.fields["message"]?.contains("<!DOCTYPE html>") == true, "\(failed.fields)")
            #expect(!events.contains { $0.kind == .retrying || $0.kind == .delayed }, "\(events.summary)")
            // …and nothing of it is in the cache
            let path = try await warmer(["cache", "path", "--cache-dir", cache.path, pageURL.absoluteString])
            #expect(path.status != 0, "\(path)")
        }
    }

    @Test func aWorkerThatAcceptsNonImagesStoresThePage() async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let page = try Origin.makeFile(TestEnvironment.uniqueName("listing") + ".jpg", contents: Self.page)
        let pageURL = try Origin.url(of: page)

        try await withWorkers(queue: queue, cacheDirectory: cache, arguments: ["--accept-non-images"]) { workers in
            let batch = try await queue.enqueue([pageURL])
            let status = try await queue.waitUntilFinished(batch: batch)
            #expect(status.completed == 1, "\(status)\n\(workers.logs)")
            let path = try await warmer(["cache", "path", "--cache-dir", cache.path, pageURL.absoluteString])
            #expect(path.status == 0, "\(path)")
            let stored = try Data(contentsOf: URL(fileURLWithPath: path.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(stored == Self.page)
        }
    }
}
