import Foundation
import PipelineEngineFakes
import Testing
import TestSupport
@testable import PipelineEngine

/// The stages behind the graph over the in-memory fakes: what the fetch
/// stage skips, the one decision on encoded variants (`VariantLookup`), and
/// what the encode and store stages write.
@Suite("Pipeline stages")
struct PipelineStageTests {
    static let thumbnail = ImageRequest(url: URL(string: "http://127.0.0.1:9/fake/variant.png")!, processors: [FakeGraph.resize1])

    @Test func aCachedOriginalIsPrefetchedWithoutALoad() async throws {
        let graph = try FakeGraph()
        let url = graph.image("cached")
        graph.cache.storeData(FakeImages.body("cached"), for: url.absoluteString)
        let response = try await graph.pipeline.prefetchData(for: ImageRequest(url: url)).response
        #expect(response.source == .disk)
        #expect(graph.loader.loads.calls.isEmpty)
    }

    @Test func coalescedProcessedPrefetchesEncodeAndStoreOnce() async throws {
        let graph = try FakeGraph { $0.dataCachePolicy = .automatic }
        let request = ImageRequest(url: graph.image("variant"), processors: [FakeGraph.resize1])
        graph.loader.hold(request.url)
        let tasks = (0..<3).map { _ in graph.pipeline.prefetchImage(for: request) }
        await graph.loader.loads.wait(for: 1)
        graph.loader.release(request.url)
        let responses = try await tasks.asyncMap { try await $0.response }
        // Then one encode in the source's format, stored under the variant's key only
        #expect(graph.encoder.encodes.calls == ["png(q=default)"])
        #expect(graph.cache.cachedData(for: request.processedDataCacheKey) == Data("fake-png(q=default)".utf8))
        #expect(graph.cache.writes.calls == [request.processedDataCacheKey])
        #expect(responses.allSatisfy { $0.cacheURL == graph.cache.url(for: request.processedDataCacheKey) })
    }

    @Test func aVariantOnDiskServesAPrefetchWithoutALoadOrADecode() async throws {
        let graph = try FakeGraph { $0.dataCachePolicy = .automatic }
        graph.cache.storeData(Data("stored variant".utf8), for: Self.thumbnail.processedDataCacheKey)
        let response = try await graph.pipeline.prefetchImage(for: Self.thumbnail).response
        #expect(response.source == .disk)
        #expect(response.byteCount == "stored variant".utf8.count)
        #expect(graph.loader.loads.calls.isEmpty && graph.decoder.decodes.calls.isEmpty)
    }

    @Test func aVariantOnDiskIsDecodedForALoadInsteadOfBeingMadeAgain() async throws {
        let graph = try FakeGraph { $0.dataCachePolicy = .automatic }
        let variant = FakeImages.body("variant bytes")
        graph.cache.storeData(variant, for: Self.thumbnail.processedDataCacheKey)
        let response = try await graph.pipeline.loadImage(for: Self.thumbnail).response
        #expect(response.source == .disk && response.data == variant)
        #expect(graph.decoder.decodes.calls.map(\.byteCount) == [variant.count])
        #expect(graph.loader.loads.calls.isEmpty && graph.processor.steps.calls.isEmpty)
    }

    @Test func aVariantThatDoesNotDecodeIsMadeAgainFromTheOriginal() async throws {
        let graph = try FakeGraph { $0.dataCachePolicy = .automatic }
        let request = ImageRequest(url: graph.image("variant"), processors: [FakeGraph.resize1])
        graph.cache.storeData(FakeImages.undecodable, for: request.processedDataCacheKey)
        let response = try await graph.pipeline.loadImage(for: request).response
        #expect(response.source == .network)
        #expect(graph.loader.loadCount(of: request.url) == 1)
        #expect(graph.processor.steps.calls == [FakeGraph.resize1.identifier])
        #expect(graph.cache.cachedData(for: request.processedDataCacheKey) == Data("fake-png(q=default)".utf8))
    }

    @Test func aPolicyThatStoresNoVariantsNeverLooksForOne() async throws {
        let graph = try FakeGraph { $0.dataCachePolicy = .storeOriginalData }
        let request = ImageRequest(url: graph.image("variant"), processors: [FakeGraph.resize1])
        graph.cache.storeData(Data("stale variant".utf8), for: request.processedDataCacheKey)
        _ = try await graph.pipeline.prefetchImage(for: request).response
        #expect(graph.loader.loadCount(of: request.url) == 1)
        #expect(graph.encoder.encodes.calls.isEmpty)
        #expect(graph.cache.writes.calls.contains(request.url.absoluteString))
    }
}
