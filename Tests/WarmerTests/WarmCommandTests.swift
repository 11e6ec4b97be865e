import Foundation
import Testing
import TestSupport

/// Acceptance 6: `warmer warm` fills a cache folder with no Redis at all.
@Suite(.serialized)
struct WarmCommandTests {
    @Test func warmFillsTheCacheWithoutRedisAndASecondRunIsServedFromDisk() async throws {
        // Given three images, a URL file, an empty cache folder, and a Redis URL nothing listens on
        let images = try await Origin.makeImages("warm", count: 3)
        let folder = try TestEnvironment.temporaryDirectory("warm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("cache", isDirectory: true)
        let list = folder.appendingPathComponent("urls.txt")
        try Data(images.map { $0.url.absoluteString + "\n" }.joined().utf8).write(to: list)
        let noRedis = ["WARMER_REDIS_URL": "redis://127.0.0.1:1"]
        let arguments = ["warm", "--cache-dir", cache.path, list.path]

        // When warm runs
        let first = try await warmer(arguments, environment: noRedis)

        // Then it succeeds, downloads every URL, and the cache holds the origin's bytes
        #expect(first.exited && first.status == 0, "\(first)")
        for image in images {
            let original = try image.contents()
            #expect(first.outputLines.contains("ok network \(original.count) \(image.url.absoluteString)"), "\(first)")
            #expect((try? Data(contentsOf: cachedFile(for: image.url, in: cache))) == original)
        }
        // (nginx logs each request once the response is sent)
        let logged = await eventually {
            images.allSatisfy { ((try? Origin.requestCount(path: $0.path)) ?? 0) >= 1 }
        }
        #expect(logged)
        let requestsAfterFirstRun = try images.map { try Origin.requestCount(path: $0.path) }
        #expect(requestsAfterFirstRun == [1, 1, 1])

        // When it runs again
        let second = try await warmer(arguments, environment: noRedis)

        // Then every URL is served from disk, with no new origin request
        #expect(second.exited && second.status == 0, "\(second)")
        for image in images {
            let size = try image.contents().count
            #expect(second.outputLines.contains("ok disk \(size) \(image.url.absoluteString)"), "\(second)")
        }
        #expect(try images.map { try Origin.requestCount(path: $0.path) } == requestsAfterFirstRun)
    }
}
