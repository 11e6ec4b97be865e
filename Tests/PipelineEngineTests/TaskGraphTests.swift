import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// Nuke's task-graph behaviour (docs/nuke-behaviour.md), with real
/// downloads from the nginx origin and real libvips work. Slow (100 KB/s)
/// URLs keep downloads in flight while several requests join them; the
/// pipeline's `counters` count the work done by stage.
@Suite("Task graph")
struct TaskGraphTests {
    let cache: DataCache
    let pipeline: ImagePipeline

    init() throws {
        cache = try DataCache.temporary("graph")
        let configuration = ImagePipeline.Configuration.testOrigin(dataCache: cache, imageCache: ImageCache(), policy: .storeOriginalData)
        pipeline = ImagePipeline(configuration: configuration)
    }

    static let resize1 = ImageProcessor.resize(.init(width: 200, height: nil))
    static let blur2 = ImageProcessor.gaussianBlur(radius: 2)
    static let circle3 = ImageProcessor.circle

    /// A ~150 KB JPEG served at 100 KB/s: the download lasts about a second.
    func slowImage(_ label: String) throws -> (file: URL, url: URL) {
        let file = try Origin.makeImage(TestEnvironment.uniqueName(label), width: 400, height: 400)
        return (file, try Origin.url(of: file, slow: true))
    }

    @Test func identicalImageRequestsShareOneDownloadAndOneDecode() async throws {
        let (file, url) = try slowImage("same-image")
        // When
        let tasks = (0..<3).map { _ in pipeline.loadImage(for: ImageRequest(url: url)) }
        let responses = try await tasks.asyncMap { try await $0.response }
        // Then
        #expect(try Origin.requestCount(path: file.lastPathComponent, slow: true) == 1)
        #expect(pipeline.counters.decodes == 1)
        #expect(responses.allSatisfy { $0.image?.width == 400 && $0.source == .network })
    }

    @Test func aRawPrefetchAndADecodeOfOneURLShareOneDownload() async throws {
        // Given one slow image
        let (file, url) = try slowImage("raw-and-decoded")
        // When its raw data is prefetched and a thumbnail of it is loaded at once
        let raw = pipeline.prefetchData(for: ImageRequest(url: url))
        let thumbnail = pipeline.loadImage(for: ImageRequest(url: url, thumbnail: .init(maxPixelSize: 64)))
        let rawResponse = try await raw.response
        let thumbnailResponse = try await thumbnail.response
        // Then both came from one download
        #expect(rawResponse.source == .network && thumbnailResponse.source == .network)
        #expect(thumbnailResponse.image?.width == 64)
        #expect(pipeline.counters.downloads == 1)
        #expect(try Origin.requestCount(path: file.lastPathComponent, slow: true) == 1)
    }

    @Test func processorChainsShareTheirCommonPrefix() async throws {
        // Given: [1] and [1, 2] at once.
        let (_, url) = try slowImage("prefix")
        let tasks = [
            pipeline.loadImage(for: ImageRequest(url: url, processors: [Self.resize1])),
            pipeline.loadImage(for: ImageRequest(url: url, processors: [Self.resize1, Self.blur2])),
        ]
        let responses = try await tasks.asyncMap { try await $0.response }
        // Then: the resize ran once, the blur once.
        #expect(pipeline.counters.processings(of: Self.resize1.identifier) == 1)
        #expect(pipeline.counters.processings(of: Self.blur2.identifier) == 1)
        #expect(pipeline.counters.downloads == 1)
        #expect(responses.map { $0.image?.width } == [200, 200])
    }

    @Test func threeOverlappingRequestsGiveTwoProcessingOperations() async throws {
        // Given: [1], [2], [1] at once.
        let (_, url) = try slowImage("overlap")
        let tasks = [[Self.resize1], [Self.blur2], [Self.resize1]].map {
            pipeline.loadImage(for: ImageRequest(url: url, processors: $0))
        }
        _ = try await tasks.asyncMap { try await $0.response }
        // Then
        #expect(pipeline.counters.processings == 2)
        #expect(pipeline.counters.decodes == 1)
    }

    @Test func memoryHoldingAPrefixServesTheLongerChainWithOneStep() async throws {
        // Given: [1, 2] is in memory.
        let file = try Origin.makeImage(TestEnvironment.uniqueName("memory-prefix"))
        let url = try Origin.url(of: file)
        _ = try await pipeline.loadImage(for: ImageRequest(url: url, processors: [Self.resize1, Self.blur2])).response
        let downloads = pipeline.counters.downloads, steps = pipeline.counters.processings
        // When: [1, 2, 3] is asked for.
        let response = try await pipeline.loadImage(for: ImageRequest(url: url, processors: [Self.resize1, Self.blur2, Self.circle3])).response
        // Then: one processing step, no download, no decode.
        #expect(pipeline.counters.processings == steps + 1)
        #expect(pipeline.counters.processings(of: Self.circle3.identifier) == 1)
        #expect(pipeline.counters.downloads == downloads)
        #expect(pipeline.counters.decodes == 1)
        #expect(response.source == .memory)
        #expect(response.image?.hasAlpha == true)
    }

    @Test func onlyTheRequestedLevelIsStoredInMemory() async throws {
        let file = try Origin.makeImage(TestEnvironment.uniqueName("levels"))
        let request = ImageRequest(url: try Origin.url(of: file), processors: [Self.resize1, Self.blur2])
        _ = try await pipeline.loadImage(for: request).response
        #expect(pipeline.cache.containsCachedImage(for: request))
        #expect(!pipeline.cache.containsCachedImage(for: request.droppingLastProcessor))
        #expect(!pipeline.cache.containsCachedImage(for: ImageRequest(url: request.url)))
    }

    @Test func cancellingOneOfTwoCoalescedImageTasksLetsTheOtherFinish() async throws {
        let (_, url) = try slowImage("image-cancel-one")
        let request = ImageRequest(url: url, processors: [Self.resize1])
        let kept = pipeline.loadImage(for: request)
        let cancelled = pipeline.loadImage(for: request)
        #expect(await eventually { pipeline.activeDataFetchCount == 1 })
        // When
        cancelled.cancel()
        // Then
        await #expect(throws: ImagePipelineError.cancelled) { try await cancelled.response }
        #expect(try await kept.response.image?.width == 200)
        #expect(pipeline.counters.downloads == 1)
    }

    @Test func cancellingEveryImageTaskCancelsTheDownload() async throws {
        // A ~350 KB file: about 2.5 s at 100 KB/s, so the cancel lands mid-download.
        let file = try Origin.makeImage(TestEnvironment.uniqueName("image-cancel-all"), width: 700, height: 700)
        let url = try Origin.url(of: file, slow: true)
        let size = try Data(contentsOf: file).count
        let tasks = [[Self.resize1], [Self.blur2]].map { pipeline.loadImage(for: ImageRequest(url: url, processors: $0)) }
        // Bytes are flowing (so the origin has the request and will log it).
        #expect(await tasks[0].firstProgress() != nil)
        // When
        tasks.forEach { $0.cancel() }
        // Then: the download is aborted (the origin sent less than the file)
        // and no task is left in the graph.
        let logged = await eventuallyValue { try? Origin.loggedRequests(path: file.lastPathComponent, slow: true).first }
        #expect(try #require(logged).bytes < size)
        #expect(await eventually { pipeline.activeDataFetchCount == 0 })
        #expect(pipeline.counters.decodes == 0)
    }

    @Test func aWaitingOperationIsRaisedWhenAHighPriorityRequestJoins() async throws {
        // Given: one download slot, held by a slow download; then `low`
        // (veryLow) and `normal` wait for it, in that order.
        var configuration = ImagePipeline.Configuration.testOrigin(dataCache: nil)
        configuration.concurrency.dataLoading = 1
        let pipeline = ImagePipeline(configuration: configuration)
        let (_, blocker) = try slowImage("blocker")
        let low = try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("low")))
        let normal = try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("normal")))
        let blocking = pipeline.loadData(for: ImageRequest(url: blocker, priority: .veryHigh))
        #expect(await eventually { pipeline.activeDataFetchCount == 1 })
        let lowTask = pipeline.loadData(for: ImageRequest(url: low, priority: .veryLow))
        let normalTask = pipeline.loadData(for: ImageRequest(url: normal, priority: .normal))
        // When: a high-priority request for the low URL joins its waiting download.
        let joined = pipeline.loadData(for: ImageRequest(url: low, priority: .high))
        _ = try await blocking.response
        // Then: the shared download runs before the normal one.
        let order = try await [lowTask, normalTask, joined].asyncMap { task in
            _ = try await task.response
            return try Origin.loggedOrder(of: [low, normal])
        }.last!
        #expect(order == [low.lastPathComponent, normal.lastPathComponent])
    }

    @Test func changingATasksPriorityMovesItsWaitingWork() async throws {
        var configuration = ImagePipeline.Configuration.testOrigin(dataCache: nil)
        configuration.concurrency.dataLoading = 1
        let pipeline = ImagePipeline(configuration: configuration)
        let (_, blocker) = try slowImage("blocker-2")
        let first = try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("first")))
        let second = try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("second")))
        let blocking = pipeline.loadData(for: ImageRequest(url: blocker))
        #expect(await eventually { pipeline.activeDataFetchCount == 1 })
        let firstTask = pipeline.loadData(for: ImageRequest(url: first, priority: .low))
        let secondTask = pipeline.loadData(for: ImageRequest(url: second, priority: .low))
        // When
        secondTask.priority = .veryHigh
        _ = try await [blocking, firstTask, secondTask].asyncMap { try await $0.response }
        // Then
        #expect(try Origin.loggedOrder(of: [first, second]) == [second.lastPathComponent, first.lastPathComponent])
    }

    @Test func withoutCoalescingEveryRequestDoesItsOwnWork() async throws {
        var configuration = ImagePipeline.Configuration.testOrigin(dataCache: nil)
        configuration.isTaskCoalescingEnabled = false
        let pipeline = ImagePipeline(configuration: configuration)
        let (_, url) = try slowImage("uncoalesced-image")
        let tasks = (0..<2).map { _ in pipeline.loadImage(for: ImageRequest(url: url, processors: [Self.resize1])) }
        _ = try await tasks.asyncMap { try await $0.response }
        #expect(pipeline.counters.downloads == 2)
        #expect(pipeline.counters.processings == 2)
    }
}

extension ImageTask {
    /// Waits for the task's first progress event; `nil` if it ended without one.
    func firstProgress() async -> Int64? {
        for await event in events {
            if case .progress(let completed, _) = event, completed > 0 { return completed }
        }
        return nil
    }
}

extension Array {
    /// `map` with an async transform, in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
