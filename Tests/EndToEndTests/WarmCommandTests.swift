import Foundation
import PipelineEngine
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

    @Test func warmWithProcessingFlagsStoresDecodableThumbnails() async throws {
        // Given two 800×600 images and an empty cache folder
        let images = try await Origin.makeImages("warm-thumb", count: 2, width: 800, height: 600)
        let folder = try TestEnvironment.temporaryDirectory("warm-thumb")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("cache", isDirectory: true)
        let list = folder.appendingPathComponent("urls.txt")
        try Data(images.map { $0.url.absoluteString + "\n" }.joined().utf8).write(to: list)
        let flags = ["--thumbnail", "64", "--format", "png"]

        // When warm runs with processing flags
        let result = try await warmer(["warm", "--cache-dir", cache.path] + flags + [list.path],
                                      environment: ["WARMER_REDIS_URL": "redis://127.0.0.1:1"])

        // Then each URL has a 64×48 PNG in the cache, found by `cache get` with the same flags
        #expect(result.exited && result.status == 0, "\(result)")
        for image in images {
            let thumbnail = folder.appendingPathComponent("thumb.png")
            let get = try await warmer(["cache", "get", "--cache-dir", cache.path] + flags + ["-o", thumbnail.path, image.url.absoluteString])
            #expect(get.status == 0, "\(get)")
            let header = try ImageHeader(data: try Data(contentsOf: thumbnail))
            #expect(header.loader == "pngload_buffer" && header.width == 64 && header.height == 48)
        }
    }
}
