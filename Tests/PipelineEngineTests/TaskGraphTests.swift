import Foundation
import PipelineEngineFakes
import Testing
import TestSupport
@testable import PipelineEngine

/// Nuke's task-graph behaviour (docs/nuke-behaviour.md) over the in-memory
/// fakes: loads are held until the test releases them, so every overlap is
/// arranged, not timed. No service is needed; the suite runs in
/// milliseconds. TaskGraphEndToEndTests keeps a few of these against the
/// real origin and libvips.
@Suite("Task graph")
struct TaskGraphTests {
    @Test func identicalImageRequestsShareOneDownloadAndOneDecode() async throws {
        let graph = try FakeGraph()
        let url = graph.image("same")
        graph.loader.hold(url)
        // When three identical requests overlap
        let tasks = (0..<3).map { _ in graph.pipeline.loadImage(for: ImageRequest(url: url)) }
        await graph.loader.loads.wait(for: 1)
        graph.loader.release(url)
        let responses = try await tasks.asyncMap { try await $0.response }
        // Then
        #expect(graph.loader.loadCount(of: url) == 1)
        #expect(graph.decoder.decodes.calls.count == 1)
        #expect(responses.allSatisfy { $0.source == .network && $0.image != nil })
    }

    @Test func aRawPrefetchAndADecodeOfOneURLShareOneDownload() async throws {
        let graph = try FakeGraph()
        let url = graph.image("raw-and-decoded")
        graph.loader.hold(url)
        let raw = graph.pipeline.prefetchData(for: ImageRequest(url: url))
        let thumbnail = graph.pipeline.loadImage(for: ImageRequest(url: url, thumbnail: .init(maxPixelSize: 64)))
        await graph.loader.loads.wait(for: 1)
        graph.loader.release(url)
        let rawResponse = try await raw.response, thumbnailResponse = try await thumbnail.response
        #expect(rawResponse.source == .network && thumbnailResponse.source == .network)
        #expect(graph.loader.loadCount(of: url) == 1)
        #expect(graph.decoder.decodes.calls.map(\.thumbnail?.maxPixelSize) == [64])
        #expect(graph.cache.containsData(for: url.absoluteString))
    }

    @Test func processorChainsShareTheirCommonPrefix() async throws {
        let graph = try FakeGraph()
        let url = graph.image("prefix")
        graph.loader.hold(url)
        let tasks = [[FakeGraph.resize1], [FakeGraph.resize1, FakeGraph.blur2]].map {
            graph.pipeline.loadImage(for: ImageRequest(url: url, processors: $0))
        }
        await graph.loader.loads.wait(for: 1)
        graph.loader.release(url)
        _ = try await tasks.asyncMap { try await $0.response }
        #expect(graph.processor.count(of: FakeGraph.resize1) == 1)
        #expect(graph.processor.count(of: FakeGraph.blur2) == 1)
        #expect(graph.loader.loadCount(of: url) == 1)
    }

    @Test func threeOverlappingRequestsGiveTwoProcessingStepsAndOneDecode() async throws {
        let graph = try FakeGraph()
        let url = graph.image("overlap")
        graph.loader.hold(url)
        let tasks = [[FakeGraph.resize1], [FakeGraph.blur2], [FakeGraph.resize1]].map {
            graph.pipeline.loadImage(for: ImageRequest(url: url, processors: $0))
        }
        await graph.loader.loads.wait(for: 1)
        graph.loader.release(url)
        _ = try await tasks.asyncMap { try await $0.response }
        #expect(graph.processor.steps.calls.count == 2)
        #expect(graph.decoder.decodes.calls.count == 1)
    }

    @Test func memoryHoldingAPrefixServesTheLongerChainWithOneStep() async throws {
        let graph = try FakeGraph()
        let url = graph.image("memory-prefix")
        _ = try await graph.pipeline.loadImage(for: ImageRequest(url: url, processors: [FakeGraph.resize1, FakeGraph.blur2])).response
        // When [1, 2, 3] is asked for
        let response = try await graph.pipeline.loadImage(
            for: ImageRequest(url: url, processors: [FakeGraph.resize1, FakeGraph.blur2, FakeGraph.circle3])).response
        // Then one more step, no download, no decode
        #expect(graph.processor.steps.calls == [FakeGraph.resize1, FakeGraph.blur2, FakeGraph.circle3].map(\.identifier))
        #expect(graph.loader.loads.calls.count == 1)
        #expect(graph.decoder.decodes.calls.count == 1)
        #expect(response.source == .memory)
    }

    @Test func onlyTheRequestedLevelIsStoredInMemory() async throws {
        let graph = try FakeGraph()
        let request = ImageRequest(url: graph.image("levels"), processors: [FakeGraph.resize1, FakeGraph.blur2])
        _ = try await graph.pipeline.loadImage(for: request).response
        #expect(graph.pipeline.cache.containsCachedImage(for: request))
        #expect(!graph.pipeline.cache.containsCachedImage(for: request.droppingLastProcessor))
        #expect(!graph.pipeline.cache.containsCachedImage(for: ImageRequest(url: request.url)))
    }

    @Test func withoutCoalescingEveryRequestDoesItsOwnWork() async throws {
        let graph = try FakeGraph { $0.isTaskCoalescingEnabled = false }
        let url = graph.image("uncoalesced")
        graph.loader.hold(url)
        let tasks = (0..<2).map { _ in graph.pipeline.loadImage(for: ImageRequest(url: url, processors: [FakeGraph.resize1])) }
        await graph.loader.loads.wait(for: 2)
        graph.loader.release(url)
        _ = try await tasks.asyncMap { try await $0.response }
        #expect(graph.loader.loadCount(of: url) == 2)
        #expect(graph.processor.steps.calls.count == 2)
    }

    @Test func aFinishedTaskLeavesThePoolSoTheNextRequestStartsFresh() async throws {
        let graph = try FakeGraph()
        let url = graph.image("fresh-again")
        let request = ImageRequest(url: url, options: [.disableDiskCacheReads, .disableMemoryCacheReads])
        _ = try await graph.pipeline.loadData(for: request).response
        _ = try await graph.pipeline.loadData(for: request).response
        #expect(graph.loader.loadCount(of: url) == 2)
        #expect(graph.pipeline.activeDataFetchCount == 0)
    }
}
