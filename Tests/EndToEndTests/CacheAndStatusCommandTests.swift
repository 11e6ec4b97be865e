import Foundation
import PipelineEngine
import Testing
import TestSupport

/// Acceptance 9: `warmer cache path` and `warmer status` tell success from absence.
@Suite(.serialized)
struct CacheAndStatusCommandTests {
    @Test func cachePathPrintsTheFileOfACachedURLAndFailsForAnUncachedOne() async throws {
        // Given one URL warmed into a cache folder, and one never fetched
        let image = try await Origin.makeImages("path", count: 1)[0]
        let folder = try TestEnvironment.temporaryDirectory("cache-path")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("cache", isDirectory: true)
        let list = folder.appendingPathComponent("urls.txt")
        try Data((image.url.absoluteString + "\n").utf8).write(to: list)
        let warm = try await warmer(["warm", "--cache-dir", cache.path, list.path])
        try #require(warm.status == 0, "\(warm)")
        let uncached = try Origin.url(path: TestEnvironment.uniqueName("never") + ".jpg")

        // When `cache path` is asked about the cached URL
        let hit = try await warmer(["cache", "path", "--cache-dir", cache.path, image.url.absoluteString])

        // Then it exits 0 and prints the file holding the origin's bytes
        #expect(hit.exited && hit.status == 0, "\(hit)")
        let printed = try #require(hit.outputLines.first, "\(hit)")
        #expect(URL(fileURLWithPath: printed).lastPathComponent == DataCache.filename(for: image.url.absoluteString))
        let original = try image.contents()
        #expect((try? Data(contentsOf: URL(fileURLWithPath: printed))) == original, "\(printed)")

        // When it is asked about the uncached URL
        let miss = try await warmer(["cache", "path", "--cache-dir", cache.path, uncached.absoluteString])

        // Then it exits 1, and no file exists at the path it printed
        #expect(miss.exited && miss.status == 1, "\(miss)")
        let missingPath = try #require(miss.outputLines.first, "\(miss)")
        #expect(!FileManager.default.fileExists(atPath: missingPath))
    }

    @Test func statusGivesABatchsTimesInISO8601UTCBesideTheMilliseconds() async throws {
        let queue = try QueueProbe()
        let batch = try await queue.enqueue([try Origin.url(path: TestEnvironment.uniqueName("times") + ".jpg")])
        let result = try await warmer(["status"] + queue.redisArguments + [batch])
        #expect(result.status == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let milliseconds = try #require((object["createdAt"] as? NSNumber)?.int64Value, "\(result)")
        let text = try #require(object["createdAtUTC"] as? String, "\(result)")
        #expect(text.hasSuffix("Z"), "\(text)")
        let parsed = try Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        #expect(Int64((parsed.timeIntervalSince1970 * 1000).rounded()) == milliseconds, "\(text) vs \(milliseconds)")
    }

    @Test func statusOfAnUnknownBatchFailsWithAClearMessage() async throws {
        // Given a queue that never saw this batch
        let queue = try QueueProbe()
        let batch = TestEnvironment.uniqueName("nobatch")

        // When its status is asked for
        let result = try await warmer(["status"] + queue.redisArguments + [batch])

        // Then status fails and says which batch it could not find
        #expect(result.exited && result.status != 0, "\(result)")
        #expect(result.standardError.contains("No batch '\(batch)'"), "\(result)")
        #expect(result.standardOutput.isEmpty, "\(result)")
    }
}
