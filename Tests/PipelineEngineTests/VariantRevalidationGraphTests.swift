import Foundation
import PipelineEngineFakes
import Testing
import TestSupport
@testable import PipelineEngine

/// HTTP cache mode's variant check inside the graph, over the fakes: a
/// stale variant is checked through its source, and whatever the check
/// finds, the node keeps the right dependency (so a cancel still reaches
/// the work it started).
@Suite("Variant revalidation in the graph")
struct VariantRevalidationGraphTests {
    /// HTTP metadata for a 200 with `etag`, fresh for `maxAge` seconds from now.
    static func metadata(etag: String, maxAge: Int, url: URL) throws -> Data {
        let now = Date()
        let metadata = try #require(HTTPCacheMetadata(
            storing: 200, headers: ["etag": etag, "cache-control": "max-age=\(maxAge)"], url: url.absoluteString,
            requestHeaders: [:], requestTime: now, responseTime: now))
        return metadata.encoded()
    }

    /// A graph in HTTP mode whose cache holds `request`'s source (fresh, etag
    /// "new") and a variant made from an older version (stale, etag "old").
    static func graphWithAChangedSource(_ request: ImageRequest) throws -> FakeGraph {
        let graph = try FakeGraph(holdingDecodes: true) {
            $0.dataCacheMode = .http
            $0.dataCachePolicy = .automatic
            $0.concurrency.decoding = 1
        }
        graph.cache.storeData(FakeImages.body("source"), for: request.dataCacheKey,
                              metadata: try metadata(etag: "\"new\"", maxAge: 3600, url: request.url))
        graph.cache.storeData(Data("old variant".utf8), for: request.processedDataCacheKey,
                              metadata: try metadata(etag: "\"old\"", maxAge: 0, url: request.url))
        return graph
    }

    @Test func aVariantOfAChangedSourceIsMadeAgainFromTheCachedSource() async throws {
        let request = ImageRequest(url: URL(string: "http://127.0.0.1:9/fake/changed.png")!, processors: [FakeGraph.resize1])
        let graph = try Self.graphWithAChangedSource(request)
        graph.decoder.gate.open()
        let response = try await graph.pipeline.loadImage(for: request).response
        #expect(graph.loader.loads.calls.isEmpty)
        #expect(graph.processor.steps.calls == [FakeGraph.resize1.identifier])
        #expect(response.data == Data("fake-png(q=default)".utf8))
    }

    @Test func cancellingAfterTheSourceChangedStopsTheDecodeItStarted() async throws {
        // Given one decode slot held by another image, and a variant whose
        // source changed: its check ends at once and queues a decode
        let request = ImageRequest(url: URL(string: "http://127.0.0.1:9/fake/changed.png")!, processors: [FakeGraph.resize1])
        let graph = try Self.graphWithAChangedSource(request)
        let blocker = graph.pipeline.loadImage(for: ImageRequest(url: graph.image("blocker")))
        await graph.decoder.decodes.wait(for: 1)
        let task = graph.pipeline.loadImage(for: request)
        #expect(await eventually { graph.pipeline.queues.decoding.waitingCount == 1 })
        // When the only caller cancels
        task.cancel()
        await #expect(throws: ImagePipelineError.cancelled) { try await task.response }
        // Then the queued decode is withdrawn
        #expect(await eventually { graph.pipeline.queues.decoding.waitingCount == 0 })
        graph.decoder.gate.open()
        _ = try await blocker.response
        #expect(graph.decoder.decodes.calls.count == 1)
    }
}
