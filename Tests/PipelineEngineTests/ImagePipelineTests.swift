import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// The data path against the nginx origin and a real disk cache. Its
/// coalescing and cancellation are tested over fakes in DataTaskGraphTests.
@Suite("ImagePipeline data path")
struct ImagePipelineTests {
    let cache: DataCache
    let pipeline: ImagePipeline

    init() throws {
        cache = try DataCache.temporary("pipeline")
        pipeline = ImagePipeline(configuration: .testOrigin(dataCache: cache))
    }

    /// A ~150 KB image on the origin, and its slow (100 KB/s) URL, so downloads stay in flight for a while.
    func slowImage(_ label: String) throws -> (file: URL, url: URL) {
        let file = try Origin.makeImage(TestEnvironment.uniqueName(label), width: 400, height: 400)
        return (file, try Origin.url(of: file, slow: true))
    }

    @Test func loadsIntoTheDiskCacheAndServesTheNextRequestFromDisk() async throws {
        let file = try Origin.makeImage(TestEnvironment.uniqueName("disk"))
        let request = ImageRequest(url: try Origin.url(of: file))
        // When
        let first = try await pipeline.loadData(for: request).response
        let second = try await pipeline.loadData(for: request).response
        // Then
        let original = try Data(contentsOf: file)
        #expect(first.source == .network)
        #expect(first.data == original)
        #expect(try Data(contentsOf: #require(first.cacheURL)) == original)
        #expect(second.source == .disk)
        #expect(second.data == original)
        #expect(try Origin.requestCount(path: file.lastPathComponent) == 1)
    }

    @Test func prefetchDoesNotReadACachedEntryBack() async throws {
        let file = try Origin.makeImage(TestEnvironment.uniqueName("prefetch"))
        let request = ImageRequest(url: try Origin.url(of: file))
        let first = try await pipeline.prefetchData(for: request).response
        let second = try await pipeline.prefetchData(for: request).response
        #expect(first.source == .network && first.data == nil)
        #expect(second.source == .disk && second.data == nil)
        #expect(second.byteCount == (try Data(contentsOf: file)).count)
    }

    @Test func eventsArriveInLifecycleOrder() async throws {
        let (file, url) = try slowImage("events")
        let task = pipeline.loadData(for: ImageRequest(url: url))
        var kinds: [String] = []
        var progress: [Int64] = []
        for await event in task.events {
            switch event {
            case .started: kinds.append("started")
            case .progress(let completed, _): kinds.append("progress"); progress.append(completed)
            case .retrying: kinds.append("retrying")
            case .cancelled: kinds.append("cancelled")
            case .completed(let result): kinds.append((try? result.get()) == nil ? "failed" : "completed")
            }
        }
        #expect(kinds.first == "started")
        #expect(kinds.last == "completed")
        #expect(kinds.dropFirst().dropLast().allSatisfy { $0 == "progress" })
        #expect(progress.count >= 2)
        #expect(progress.last == Int64(try Data(contentsOf: file).count))
    }

    @Test func failedDownloadCompletesWithTheReason() async throws {
        let task = pipeline.loadData(for: ImageRequest(url: try Origin.url(path: "missing-\(UUID()).jpg")))
        let result = await task.result
        #expect(throws: ImagePipelineError.dataLoadingFailed(.httpStatus(404))) { try result.get() }
    }

    @Test func returnCacheDataDontLoadFailsOnAMissAndLoadsNothing() async throws {
        let file = try Origin.makeImage(TestEnvironment.uniqueName("dont-load"))
        let request = ImageRequest(url: try Origin.url(of: file), options: [.returnCacheDataDontLoad])
        await #expect(throws: ImagePipelineError.dataMissingInCache) { try await pipeline.loadData(for: request).response }
        #expect(try Origin.requestCount(path: file.lastPathComponent) == 0)
    }

    @Test func reloadIgnoringCachedDataLoadsOnceMore() async throws {
        let file = try Origin.makeImage(TestEnvironment.uniqueName("reload"))
        let url = try Origin.url(of: file)
        _ = try await pipeline.loadData(for: ImageRequest(url: url)).response
        let reloaded = try await pipeline.loadData(for: ImageRequest(url: url, options: [.reloadIgnoringCachedData])).response
        #expect(reloaded.source == .network)
        #expect(try Origin.requestCount(path: file.lastPathComponent) == 2)
    }

    @Test func disableDiskCacheWritesLeavesTheCacheEmpty() async throws {
        let file = try Origin.makeImage(TestEnvironment.uniqueName("no-write"))
        let url = try Origin.url(of: file)
        let response = try await pipeline.loadData(for: ImageRequest(url: url, options: [.disableDiskCacheWrites])).response
        #expect(response.cacheURL == nil)
        cache.flush()
        #expect(!cache.containsData(for: url.absoluteString))
    }

    @Test func aQueuedDiskReadFollowsTheTasksPriorityAndLeavesTheQueueWhenCancelled() async throws {
        // Given two cached images, and every slot of the data-caching queue taken
        let files = try (0..<2).map { try Origin.makeImage(TestEnvironment.uniqueName("queued-read-\($0)")) }
        let requests = try files.map { ImageRequest(url: try Origin.url(of: $0), priority: .low) }
        for request in requests { _ = try await pipeline.loadData(for: request).response }
        let queue = pipeline.queues.dataCaching
        let release = DispatchSemaphore(value: 0), markerGate = DispatchSemaphore(value: 0)
        let slots = pipeline.configuration.concurrency.dataCaching
        let blockers = (0..<slots).map { _ in queue.enqueueBlocking(priority: .veryHigh) { release.wait() } }
        defer {
            for _ in blockers { release.signal() }
            markerGate.signal()
        }

        // When a loadData waits (low) for its disk read, work at normal
        // priority queues behind it, and the task is raised to very high
        let task = pipeline.loadData(for: requests[0])
        let queued = await eventually { queue.waitingCount == 1 }
        try #require(queued, "the disk read was not queued")
        let markerRan = Counter(), markerRanFirst = Counter()
        let marker = queue.enqueueBlocking(priority: .normal) { [task] in
            if !task.isFinished { markerRanFirst.add(1) }
            markerRan.add(1)
            markerGate.wait()
        }
        task.priority = .veryHigh
        release.signal() // one slot frees

        // Then the read takes that slot before the normal-priority work
        // (which takes the slot the read frees, and holds it)
        let bothRan = await eventually { task.isFinished && markerRan.value == 1 }
        #expect(bothRan)
        #expect(markerRanFirst.value == 0, "the read did not follow the task to its new priority")

        // And a read whose task is cancelled while it waits leaves the queue
        let cancelled = pipeline.loadData(for: requests[1])
        let queuedAgain = await eventually { queue.waitingCount == 1 }
        try #require(queuedAgain, "the second disk read was not queued")
        cancelled.cancel()
        #expect(queue.waitingCount == 0)
        _ = marker
    }
}
