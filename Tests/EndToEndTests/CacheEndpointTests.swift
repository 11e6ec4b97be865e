import Foundation
import Testing
import TestSupport

/// `warmer serve`'s `GET /v1/cache` against real processes: the same bytes as
/// `warmer cache get`, validators, ranges, misses, and `warm=1` loading a
/// miss through the nginx origin (docs/http-api.md, "Cached images").
@Suite(.serialized)
struct CacheEndpointTests {
    @Test func originalBytesEqualCacheGetWithTheirValidatorsAndRanges() async throws {
        // Given a JPEG warmed into a cache folder by `warmer warm`
        let image = try await Origin.makeImages("serve-disk", count: 1, width: 320, height: 240)[0]
        let folder = try TestEnvironment.temporaryDirectory("serve-disk")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("cache", isDirectory: true)
        try await warm([image.url], into: cache, folder: folder)
        let expected = try await cacheGet(image.url, cache: cache, folder: folder)
        #expect(expected == (try image.contents()))

        let server = try await CacheServeProcess(cacheDirectory: cache)
        defer { Task { await server.stop() } }
        let path = CacheServeProcess.cachePath(image.url)

        // When it is asked for, then it answers the very bytes with its headers
        let whole = try await server.get(path)
        #expect(whole.status == 200, "\(whole)")
        #expect(whole.body == expected)
        #expect(whole["Content-Type"] == "image/jpeg", "\(whole)")
        #expect(whole["Accept-Ranges"] == "bytes", "\(whole)")
        #expect(whole["Cache-Control"] == "public, max-age=3600", "\(whole)")
        #expect(whole["Last-Modified"]?.hasSuffix(" GMT") == true, "\(whole)")
        let etag = try #require(whole["ETag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"), "\(etag)")

        // A matching If-None-Match (alone, weakly in a list, or *) is 304 without a body
        for condition in [etag, "\"other\", W/\(etag)", "*"] {
            let notModified = try await server.get(path, headers: ["If-None-Match": condition])
            #expect(notModified.status == 304, "\(condition): \(notModified)")
            #expect(notModified.body.isEmpty && notModified["ETag"] == etag, "\(notModified)")
        }
        let changed = try await server.get(path, headers: ["If-None-Match": "\"something-else\""])
        #expect(changed.status == 200 && changed.body == expected, "\(changed)")

        // Ranges: a-b, -n and a- are 206 with the slice; past the end is 416
        let size = expected.count
        let cases: [(String, Range<Int>)] = [("bytes=10-99", 10..<100), ("bytes=-50", (size - 50)..<size), ("bytes=\(size - 7)-", (size - 7)..<size)]
        for (header, slice) in cases {
            let part = try await server.get(path, headers: ["Range": header])
            #expect(part.status == 206, "\(header): \(part)")
            #expect(part.body == expected.subdata(in: slice), "\(header)")
            #expect(part["Content-Range"] == "bytes \(slice.lowerBound)-\(slice.upperBound - 1)/\(size)", "\(part)")
        }
        let beyond = try await server.get(path, headers: ["Range": "bytes=\(size)-"])
        #expect(beyond.status == 416, "\(beyond)")
        #expect(beyond["Content-Range"] == "bytes */\(size)", "\(beyond)")
        #expect(beyond.json["code"] as? String == "range_not_satisfiable", "\(beyond)")
        // Several ranges are answered with everything
        let several = try await server.get(path, headers: ["Range": "bytes=0-1,5-9"])
        #expect(several.status == 200 && several.body == expected, "\(several)")

        // HEAD: the headers, no body
        let head = try await server.get(path, method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty, "\(head)")
        #expect(head["Content-Length"] == String(size) && head["ETag"] == etag, "\(head)")

        // Another server over the same folder gives the same tag (a digest of the bytes)
        let replica = try await CacheServeProcess(cacheDirectory: cache)
        defer { Task { await replica.stop() } }
        let again = try await replica.get(path)
        #expect(again.status == 200 && again["ETag"] == etag, "\(again)")
    }

    @Test func processedVariantsMatchCacheGetAndMissesAreProblems() async throws {
        // Given a 400×300 image and its 64 px PNG variant warmed by `warmer warm`
        let image = try await Origin.makeImages("serve-variant", count: 1, width: 400, height: 300)[0]
        let folder = try TestEnvironment.temporaryDirectory("serve-variant")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("cache", isDirectory: true)
        let png = "thumbnail=64&format=png"
        try await warm([image.url], into: cache, folder: folder, processing: png)
        let expected = try await cacheGet(image.url, cache: cache, folder: folder, processing: png)

        let server = try await CacheServeProcess(cacheDirectory: cache)
        defer { Task { await server.stop() } }

        // When the variant is asked for, then its bytes are `warmer cache get`'s, as PNG
        let variant = try await server.get(CacheServeProcess.cachePath(image.url, processing: png))
        #expect(variant.status == 200, "\(variant)")
        #expect(variant.body == expected)
        #expect(variant["Content-Type"] == "image/png", "\(variant)")

        // The original data was never stored (only the variant): a 404 problem
        let original = try await server.get(CacheServeProcess.cachePath(image.url))
        #expect(original.status == 404, "\(original)")
        #expect(original["Content-Type"] == "application/problem+json", "\(original)")
        #expect(original.json["code"] as? String == "not_cached", "\(original)")

        // A spec that does not parse, or a URL that is not http(s), is a 400
        let badSpec = try await server.get(CacheServeProcess.cachePath(image.url, processing: "thumbnail=huge"))
        #expect(badSpec.status == 400 && badSpec.json["code"] as? String == "bad_request", "\(badSpec)")
        let badURL = try await server.get("/v1/cache?url=" + CacheServeProcess.encode("file:///etc/passwd"))
        #expect(badURL.status == 400, "\(badURL)")

        // warm=1 makes a WebP variant here; `warmer cache get` then finds the same bytes
        let webp = "thumbnail=48&format=webp"
        let warmed = try await server.get(CacheServeProcess.cachePath(image.url, processing: webp, warm: true))
        #expect(warmed.status == 200, "\(warmed)")
        #expect(warmed["Content-Type"] == "image/webp", "\(warmed)")
        var stored: Data?
        _ = await eventually { stored = try? await cacheGet(image.url, cache: cache, folder: folder, processing: webp); return stored != nil }
        #expect(stored == warmed.body)
    }

    @Test func tenConcurrentWarmCallersShareOneOriginRequest() async throws {
        // Given a slow image (about a second to download) and an empty cache folder
        let image = try await Origin.makeImages("serve-warm", count: 1, width: 400, height: 400, slow: true)[0]
        let folder = try TestEnvironment.temporaryDirectory("serve-warm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("cache", isDirectory: true)
        let server = try await CacheServeProcess(cacheDirectory: cache, arguments: ["--warm-concurrency", "2"])
        defer { Task { await server.stop() } }
        let path = CacheServeProcess.cachePath(image.url, warm: true)

        // When ten callers ask for it with warm=1 at once
        let answers = try await withThrowingTaskGroup(of: CacheServeProcess.Answer.self) { group in
            for _ in 0..<10 { group.addTask { try await server.get(path) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then all ten get the origin's bytes…
        let original = try image.contents()
        #expect(answers.count == 10)
        #expect(answers.allSatisfy { $0.status == 200 && $0.body == original }, "\(answers.map(\.status))\n\(server.log)")
        #expect(Set(answers.compactMap { $0["ETag"] }).count == 1)
        // …through one request at the origin (nginx logs it once sent)
        let logged = await eventually { (try? Origin.requestCount(path: image.path, slow: true)) ?? 0 >= 1 }
        #expect(logged)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try Origin.requestCount(path: image.path, slow: true) == 1)

        // An origin's failure is a 502 problem with the pipeline's code
        let missing = try await server.get(CacheServeProcess.cachePath(try Origin.missingURL(), warm: true))
        #expect(missing.status == 502, "\(missing)")
        #expect(missing.json["code"] as? String == "http_404", "\(missing)")
    }

    @Test func warmingARefusedAddressIsAForbiddenProblemWithoutARequest() async throws {
        // Given a server whose SSRF rules allow no private address (the origin is on loopback)
        let image = try await Origin.makeImages("serve-refused", count: 1)[0]
        let folder = try TestEnvironment.temporaryDirectory("serve-refused")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await CacheServeProcess(
            cacheDirectory: folder.appendingPathComponent("cache", isDirectory: true),
            environment: ["WARMER_ALLOW_HOSTS": "", "WARMER_ALLOW_NETWORKS": ""])
        defer { Task { await server.stop() } }

        // When a miss on the origin is asked for with warm=1
        let refused = try await server.get(CacheServeProcess.cachePath(image.url, warm: true))

        // Then it is a 403 problem with the pipeline's code, and nginx saw nothing
        #expect(refused.status == 403, "\(refused)")
        #expect(refused["Content-Type"] == "application/problem+json", "\(refused)")
        #expect(refused.json["code"] as? String == "address_refused", "\(refused)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try Origin.requestCount(path: image.path) == 0)
    }

    /// `warmer warm` of `urls` into `cache` (with a processing spec when given).
    private func warm(_ urls: [URL], into cache: URL, folder: URL, processing: String? = nil) async throws {
        let list = folder.appendingPathComponent("urls-\(UUID().uuidString).txt")
        try Data(urls.map { $0.absoluteString + "\n" }.joined().utf8).write(to: list)
        let result = try await warmer(["warm", "--cache-dir", cache.path] + (processing.map { ["--processing", $0] } ?? []) + [list.path])
        guard result.status == 0 else { throw HarnessError("warm failed: \(result)") }
    }

    /// `warmer cache get` of `url` (the real CLI), written to a file and read back.
    private func cacheGet(_ url: URL, cache: URL, folder: URL, processing: String? = nil) async throws -> Data {
        let output = folder.appendingPathComponent("get-\(UUID().uuidString)")
        let result = try await warmer(["cache", "get", "--cache-dir", cache.path, "-o", output.path]
            + (processing.map { ["--processing", $0] } ?? []) + [url.absoluteString])
        guard result.status == 0 else { throw HarnessError("cache get failed: \(result)") }
        return try Data(contentsOf: output)
    }
}
