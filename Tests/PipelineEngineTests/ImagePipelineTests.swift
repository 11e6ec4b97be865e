import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

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

    @Test func coalescesIdenticalDownloads() async throws {
        // Given
        let (file, url) = try slowImage("coalesce")
        // When: two tasks for the same URL run at once.
        let tasks = [pipeline.loadData(for: ImageRequest(url: url)), pipeline.loadData(for: ImageRequest(url: url))]
        let responses = try await [tasks[0].response, tasks[1].response]
        // Then: one origin request, both tasks get the bytes.
        #expect(try Origin.requestCount(path: file.lastPathComponent, slow: true) == 1)
        #expect(responses.allSatisfy { $0.source == .network && $0.data == (try? Data(contentsOf: file)) })
    }

    @Test func withoutCoalescingEveryTaskDownloads() async throws {
        var configuration = ImagePipeline.Configuration.testOrigin(dataCache: nil)
        configuration.isTaskCoalescingEnabled = false
        let uncoalesced = ImagePipeline(configuration: configuration)
        let (file, url) = try slowImage("no-coalesce")
        let tasks = [uncoalesced.loadData(for: ImageRequest(url: url)), uncoalesced.loadData(for: ImageRequest(url: url))]
        _ = try await [tasks[0].response, tasks[1].response]
        #expect(try Origin.requestCount(path: file.lastPathComponent, slow: true) == 2)
    }

    @Test func cancellingOneOfTwoCoalescedTasksLetsTheOtherFinish() async throws {
        let (file, url) = try slowImage("cancel-one")
        let kept = pipeline.loadData(for: ImageRequest(url: url))
        let cancelled = pipeline.loadData(for: ImageRequest(url: url))
        try await Task.sleep(for: .milliseconds(300))
        // When
        cancelled.cancel()
        // Then
        await #expect(throws: ImagePipelineError.cancelled) { try await cancelled.response }
        #expect(try await kept.response.data == (try Data(contentsOf: file)))
        #expect(try Origin.requestCount(path: file.lastPathComponent, slow: true) == 1)
    }

    @Test func cancellingEveryTaskCancelsTheDownload() async throws {
        let (file, url) = try slowImage("cancel-all")
        let tasks = [pipeline.loadData(for: ImageRequest(url: url)), pipeline.loadData(for: ImageRequest(url: url))]
        try await Task.sleep(for: .milliseconds(300))
        #expect(pipeline.activeDataFetchCount == 1)
        // When
        tasks.forEach { $0.cancel() }
        for task in tasks { await #expect(throws: ImagePipelineError.cancelled) { try await task.response } }
        // Then: the shared download left the pool and nothing was cached.
        #expect(pipeline.activeDataFetchCount == 0)
        cache.flush()
        #expect(!cache.containsData(for: url.absoluteString))
        _ = file
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

    @Test func cancelledTaskEndsWithACancelledEvent() async throws {
        let (_, url) = try slowImage("event-cancel")
        let task = pipeline.loadData(for: ImageRequest(url: url))
        Task {
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
        }
        var last: ImageTask.Event?
        for await event in task.events { last = event }
        guard case .cancelled = last else {
            Issue.record("last event was \(String(describing: last))")
            return
        }
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
