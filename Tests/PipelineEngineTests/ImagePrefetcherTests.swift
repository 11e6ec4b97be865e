import Foundation
import Synchronization
import Testing
import TestSupport
@testable import PipelineEngine

@Suite("ImagePrefetcher")
struct ImagePrefetcherTests {
    let cache: DataCache
    let pipeline: ImagePipeline

    init() throws {
        cache = try DataCache.temporary("prefetcher")
        let configuration = ImagePipeline.Configuration.testOrigin(dataCache: cache, imageCache: ImageCache(), policy: .storeAll)
        pipeline = ImagePipeline(configuration: configuration)
    }

    func images(_ label: String, count: Int) throws -> [URL] {
        try (0..<count).map { try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("\(label)-\($0)"))) }
    }

    /// Starts prefetching and waits for `didComplete`.
    func prefetchAndWait(_ prefetcher: ImagePrefetcher, _ requests: [ImageRequest]) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = Mutex(false)
            prefetcher.didComplete = {
                guard resumed.withLock({ let was = $0; $0 = true; return !was }) else { return }
                continuation.resume()
            }
            prefetcher.startPrefetching(with: requests)
        }
    }

    @Test func diskDestinationStoresOriginalDataAndNeverDecodes() async throws {
        let urls = try images("disk-dest", count: 3)
        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache)
        await prefetchAndWait(prefetcher, urls.map { ImageRequest(url: $0, processors: [.circle]) })
        cache.flush()
        #expect(urls.allSatisfy { cache.containsData(for: $0.absoluteString) })
        #expect(pipeline.counters.decodes == 0 && pipeline.counters.encodes == 0)
    }

    @Test func memoryDestinationProcessesAndCaches() async throws {
        let urls = try images("memory-dest", count: 2)
        let requests = urls.map { ImageRequest(url: $0, thumbnail: .init(maxPixelSize: 50)) }
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        await prefetchAndWait(prefetcher, requests)
        #expect(requests.allSatisfy { pipeline.cache.containsCachedImage(for: $0) })
        cache.flush()
        #expect(requests.allSatisfy { cache.containsData(for: $0.processedDataCacheKey) })
    }

    @Test func completionFiresWhenEverythingIsAlreadyCached() async throws {
        let urls = try images("cached", count: 2)
        let requests = urls.map { ImageRequest(url: $0) }
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        await prefetchAndWait(prefetcher, requests)
        let decodes = pipeline.counters.decodes
        // When: the same requests again, all in memory now.
        await prefetchAndWait(prefetcher, requests)
        // Then: it completed, with no new work.
        #expect(pipeline.counters.decodes == decodes)
        #expect(prefetcher.pendingCount == 0)
    }

    @Test func pausedPrefetcherStartsNothingUntilResumed() async throws {
        let urls = try images("paused", count: 2)
        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache)
        prefetcher.isPaused = true
        prefetcher.startPrefetching(with: urls)
        try await Task.sleep(for: .milliseconds(300))
        #expect(pipeline.counters.downloads == 0)
        #expect(prefetcher.pendingCount == 2)
        // When
        prefetcher.isPaused = false
        // Then
        #expect(await eventually { prefetcher.pendingCount == 0 })
        #expect(pipeline.counters.downloads == 2)
    }

    @Test func duplicateRequestsArePrefetchedOnce() async throws {
        let urls = try images("dupes", count: 1)
        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache)
        prefetcher.isPaused = true
        prefetcher.startPrefetching(with: urls + urls + urls)
        #expect(prefetcher.pendingCount == 1)
        prefetcher.isPaused = false
        #expect(await eventually { prefetcher.pendingCount == 0 })
    }

    @Test func stoppingCancelsEverything() async throws {
        let file = try Origin.makeImage(TestEnvironment.uniqueName("stop"), width: 500, height: 500)
        let url = try Origin.url(of: file, slow: true)
        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache)
        let task = prefetcher.prefetch(ImageRequest(url: url))
        #expect(await eventually { pipeline.activeDataFetchCount == 1 })
        // When
        prefetcher.stopPrefetching()
        // Then
        await #expect(throws: ImagePipelineError.cancelled) { try await task.response }
        #expect(await eventually { pipeline.activeDataFetchCount == 0 && prefetcher.pendingCount == 0 })
    }

    @Test func itsPriorityAppliesToEveryRequest() async throws {
        let urls = try images("priority", count: 1)
        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache, priority: .veryLow)
        prefetcher.isPaused = true
        let task = prefetcher.prefetch(ImageRequest(url: urls[0], priority: .high))
        #expect(task.priority == .veryLow)
        // When
        prefetcher.priority = .veryHigh
        // Then
        #expect(task.priority == .veryHigh)
        prefetcher.isPaused = false
        _ = try await task.response
    }

    @Test func completionFiresOnceWhenEverythingIsOnDiskAlready() async throws {
        // Given: three images already in the disk cache.
        let urls = try images("once", count: 3)
        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache)
        await prefetchAndWait(prefetcher, urls.map { ImageRequest(url: $0) })
        cache.flush()
        // When: they are prefetched again (each finishes at once, from disk).
        let completions = Mutex(0)
        prefetcher.didComplete = { completions.withLock { $0 += 1 } }
        prefetcher.startPrefetching(with: urls)
        // Then: one completion, after the last request, not one per request.
        #expect(completions.withLock { $0 } == 1)
        #expect(pipeline.counters.downloads == 3)
    }
}
