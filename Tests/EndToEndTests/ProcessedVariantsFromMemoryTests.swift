import Foundation
import PipelineEngine
import Scheduler
import Testing
import TestSupport

/// One URL warmed five times in a row as processed jobs, each with another
/// spec, by one worker with its default memory cache (issue 23: the
/// variants whose pixels came from the memory cache completed with
/// `source: "memory"` and the pixel buffer's size as `bytes`, and stored
/// nothing). Real worker, real libvips; each batch waits for the one before,
/// so the later ones find the decoded image in memory.
@Suite(.serialized)
struct ProcessedVariantsFromMemoryTests {
    /// The five specs, as enqueue flags, and the loader of the file each must leave.
    static let specs: [(flags: [String], loader: String)] = [
        (["--format", "webp"], "webpload_buffer"),
        (["--format", "png", "--quality", "50"], "pngload_buffer"),
        (["--processing", "format=webp&quality=80"], "webpload_buffer"),
        (["--thumbnail", "300", "--format", "webp"], "webpload_buffer"),
        ([], "jpegload_buffer"), // no processing: re-encoded in the source's format
    ]

    @Test func everyProcessedVariantIsStoredAndReadBackWhateverServedItsPixels() async throws {
        // Given an 800×534 JPEG and one worker with the default memory cache
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try await Origin.makeImages("variants", count: 1, width: 800, height: 534)[0]
        let url = image.url.absoluteString

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1) { workers in
            var sources: [String] = []
            for spec in Self.specs {
                // When it is enqueued as a processed job with the spec, after the previous one finished
                let batch = try await queue.enqueue([image.url], extra: ["--destination", "processed"] + spec.flags)
                let status = try await queue.waitUntilFinished(batch: batch)
                #expect(status.completed == 1, "\(spec.flags): \(status)\n\(workers.logs)")
                let completed = try #require(try await queue.events(ofBatch: batch).first { $0.kind == .completed })
                sources.append(completed.fields["source"] ?? "-")

                // Then `warmer cache get` with the same flags reads the variant back…
                let output = cache.appendingPathComponent("read-back")
                let get = try await warmer(["cache", "get", "--cache-dir", cache.path] + (spec.flags.isEmpty ? ["--processing", ""] : spec.flags)
                                           + ["-o", output.path, url])
                #expect(get.status == 0, "\(spec.flags): \(get)")
                let stored = try Data(contentsOf: output)
                #expect(try ImageHeader(data: stored).loader == spec.loader, "\(spec.flags)")
                // …and the job's `bytes` is that file's size
                #expect(completed.fields["bytes"] == String(stored.count), "\(spec.flags): \(completed.summary)")
            }
            // ... the plain image's variants after the first came from memory
            // (the thumbnail is decoded anew, shrink-on-load)
            #expect(sources == ["network", "memory", "memory", "network", "memory"], "\(workers.logs)")
        }
    }
}
