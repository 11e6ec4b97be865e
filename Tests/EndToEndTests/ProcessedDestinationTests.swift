import Foundation
import PipelineEngine
import Scheduler
import Testing
import TestSupport

/// The `processed` destination end to end: enqueue with processing flags, a
/// real worker, real libvips, files checked by decoding them.
@Suite(.serialized)
struct ProcessedDestinationTests {
    @Test func aThumbnailBatchLeavesDecodable320PixelWebPFiles() async throws {
        // Given three 1200×900 JPEGs
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("thumb", count: 3, width: 1200, height: 900)

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            // When they are enqueued for processing into 320-px WebP thumbnails
            let batch = try await queue.enqueue(images.map(\.url), extra: [
                "--destination", "processed", "--thumbnail", "320", "--format", "webp", "--quality", "80",
            ])
            let status = try await queue.waitUntilFinished(batch: batch)

            // Then every job completed…
            #expect(status.completed == 3, "\(status)\n\(workers.logs)")
            for image in images {
                // …and `warmer cache path` with the same flags finds a 320×240 WebP
                let path = try await warmer(["cache", "path", "--cache-dir", cache.path, "--thumbnail", "320",
                                             "--format", "webp", "--quality", "80", image.url.absoluteString])
                #expect(path.status == 0, "\(path)")
                let file = try #require(path.outputLines.first)
                let header = try ImageHeader(data: try Data(contentsOf: URL(fileURLWithPath: file)))
                #expect(header.loader == "webpload_buffer")
                #expect(header.width == 320 && header.height == 240)
                // …and, under the worker's default policy (automatic), not the
                // original: a processed job stores what it asked for
                #expect(!FileManager.default.fileExists(atPath: cachedFile(for: image.url, in: cache).path))
            }
            // …and the batch remembers its spec
            #expect(status.processing == "thumbnail=320&format=webp&quality=80")
        }
    }

    @Test(arguments: ["automatic", "storeAll"])
    func aFormatOnlyJobStoresItsEncodedVariantAndReportsItsStoredSize(policy: String) async throws {
        // Given a 600×400 JPEG
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try await Origin.makeImages("fmt", count: 1, width: 600, height: 400)[0]

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1,
                              arguments: ["--data-cache-policy", policy]) { workers in
            // When it is processed with only an output format
            let batch = try await queue.enqueue([image.url], extra: ["--destination", "processed", "--format", "webp"])
            let status = try await queue.waitUntilFinished(batch: batch)
            #expect(status.completed == 1, "\(status)\n\(workers.logs)")

            // Then `warmer cache path --processing format=webp` finds a WebP of the same size…
            let path = try await warmer(["cache", "path", "--cache-dir", cache.path, "--processing", "format=webp",
                                         image.url.absoluteString])
            #expect(path.status == 0, "\(path)")
            let file = try #require(path.outputLines.first)
            let stored = try Data(contentsOf: URL(fileURLWithPath: file))
            let header = try ImageHeader(data: stored)
            #expect(header.loader == "webpload_buffer" && header.width == 600 && header.height == 400)
            // …its `completed` event's `bytes` is the size of that file…
            let completed = try #require(try await queue.events(ofBatch: batch).first { $0.kind == .completed })
            #expect(completed.fields["bytes"] == String(stored.count), "\(completed.summary)")
            // …and the original is kept only under storeAll
            let original = FileManager.default.fileExists(atPath: cachedFile(for: image.url, in: cache).path)
            #expect(original == (policy == "storeAll"))
        }
    }

    @Test func aJobWithAnEmptySpecStoresTheImageReencodedInItsSourceFormat() async throws {
        // Given a 600×400 JPEG
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try await Origin.makeImages("empty", count: 1, width: 600, height: 400)[0]

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1) { workers in
            // When it is enqueued for the processed destination with no processing at all
            let batch = try await queue.enqueue([image.url], extra: ["--destination", "processed"])
            let status = try await queue.waitUntilFinished(batch: batch)
            #expect(status.completed == 1, "\(status)\n\(workers.logs)")

            // Then the re-encoded JPEG is under its own key (`--processing ''`), not the original's
            let path = try await warmer(["cache", "path", "--cache-dir", cache.path, "--processing", "",
                                         image.url.absoluteString])
            #expect(path.status == 0, "\(path)")
            let file = try #require(path.outputLines.first)
            let stored = try Data(contentsOf: URL(fileURLWithPath: file))
            let header = try ImageHeader(data: stored)
            #expect(header.loader == "jpegload_buffer" && header.width == 600 && header.height == 400)
            #expect(stored != (try image.contents()), "the file must be the re-encoded image, not the download")
            #expect(!FileManager.default.fileExists(atPath: cachedFile(for: image.url, in: cache).path))
            let completed = try #require(try await queue.events(ofBatch: batch).first { $0.kind == .completed })
            #expect(completed.fields["bytes"] == String(stored.count), "\(completed.summary)")
        }
    }

    @Test(arguments: ["storeOriginalData", "storeEncodedImages"])
    func theWorkerRefusesAPolicyUnderWhichADestinationWouldStoreTheWrongThing(policy: String) async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }

        let result = try await warmer(["worker"] + queue.redisArguments + ["--cache-dir", cache.path,
                                                                          "--data-cache-policy", policy])

        #expect(result.status == 64, "\(result)")
        #expect(result.standardError.contains("data-cache-policy") && result.standardError.contains(policy), "\(result)")
    }

    @Test func aDecompressionBombAndATruncatedJPEGFailWithReasonsAndTheWorkerCarriesOn() async throws {
        // Given a PNG whose header claims 30000×30000 pixels, the first half
        // of a JPEG, and a good image
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let good = try await Origin.makeImages("good", count: 1)[0]
        let whole = try await Origin.makeImages("whole", count: 1, width: 600, height: 400)[0]
        let bomb = try Origin.makeFile(TestEnvironment.uniqueName("bomb") + ".png", contents: PNGBomb.data(width: 30000, height: 30000))
        let truncated = try Origin.makeFile(TestEnvironment.uniqueName("truncated") + ".jpg",
                                            contents: try whole.contents().prefix(try whole.contents().count / 2))
        let bombURL = try Origin.url(of: bomb), truncatedURL = try Origin.url(of: truncated)

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            // When they are processed
            let batch = try await queue.enqueue([bombURL, truncatedURL, good.url], extra: ["--destination", "processed", "--resize", "100x0"])
            let status = try await queue.waitUntilFinished(batch: batch)

            // Then the two bad ones failed, each with its reason, and the good one completed
            #expect(status.failed == 2 && status.completed == 1, "\(status)\n\(workers.logs)")
            let failures = try await queue.events(ofBatch: batch).filter { $0.kind == .failed }
            let reasons = Dictionary(failures.map { ($0.url ?? "", $0.fields["error"] ?? "") }, uniquingKeysWith: { a, _ in a })
            #expect(reasons[bombURL.absoluteString] == "too_many_pixels", "\(failures)")
            #expect(reasons[truncatedURL.absoluteString] == "decoding_failed", "\(failures)")
            #expect(failures.allSatisfy { $0.fields["message"]?.isEmpty == false })
            // …and the worker is still running
            #expect(workers[0].isRunning, "\(workers.logs)")
        }
    }

    @Test func aJobWithAnUnparseableProcessingSpecIsDeadLettered() async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try await Origin.makeImages("spec", count: 1)[0]

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1) { workers in
            // Given a job pushed through the queue API with a spec the CLI would refuse
            let batch = try await queue.queue.enqueue(urls: [image.url.absoluteString], destination: .processed,
                                                      processing: "resize=big")
            let status = try await queue.waitUntilFinished(batch: batch)
            // Then it is dead-lettered with the reason, and nothing was downloaded
            #expect(status.dead == 1, "\(status)\n\(workers.logs)")
            let dead = try #require(try await queue.events(ofBatch: batch).first { $0.kind == .deadLettered })
            #expect(dead.fields["error"] == "invalid_processing")
            #expect(dead.fields["message"]?.contains("resize") == true)
            #expect(try Origin.requestCount(path: image.path) == 0)
        }
    }

    @Test func enqueueRefusesProcessingFlagsForTheDiskDestination() async throws {
        let queue = try QueueProbe()
        let folder = try TestEnvironment.temporaryDirectory("urls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("urls.txt")
        try Data("https://example.com/a.jpg\n".utf8).write(to: file)

        let result = try await warmer(["enqueue"] + queue.redisArguments + ["--thumbnail", "320", file.path])
        let badSpec = try await warmer(["enqueue"] + queue.redisArguments + ["--destination", "processed", "--format", "tiff", file.path])

        #expect(result.status != 0 && result.standardError.contains("--destination processed"), "\(result)")
        #expect(badSpec.status != 0 && badSpec.standardError.contains("format"), "\(badSpec)")
        #expect(try await queue.send(["ZCARD", queue.queue.keys.queue]).integer == 0)
    }
}

/// A PNG whose header announces a huge image: a few bytes on the wire, what
/// a decompression bomb looks like before anything is decoded.
enum PNGBomb {
    static func data(width: UInt32, height: UInt32) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(bigEndian: width)
        header.append(bigEndian: height)
        header.append(contentsOf: [8, 0, 0, 0, 0]) // 8-bit greyscale, deflate, no filter, no interlace
        png.append(chunk: "IHDR", header)
        // A zlib stream of a few zero rows: decoding it all would need 900 MB.
        png.append(chunk: "IDAT", Data([0x78, 0x9C, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01]))
        png.append(chunk: "IEND", Data())
        return png
    }
}

private extension Data {
    mutating func append(bigEndian value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    mutating func append(chunk type: String, _ payload: Data) {
        append(bigEndian: UInt32(payload.count))
        let body = Data(type.utf8) + payload
        append(body)
        append(bigEndian: Self.crc32(body))
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}
