import Foundation
import Synchronization

/// Prefetches images so that later requests find them cached, after Nuke's
/// `ImagePrefetcher`.
///
/// - At most `maxConcurrentRequestCount` requests run at once; each holds
///   its slot for its whole load. The rest wait in priority order.
/// - `destination` `.diskCache` downloads the original data and never
///   decodes it; `.memoryCache` runs full processing (memory, and the disk
///   as the pipeline's `dataCachePolicy` says) — where Warmer goes further,
///   an encoded copy already on disk counts as cached and is not decoded.
/// - `priority` applies to every request (default `.low`); `nil` keeps each
///   request's own. Changing it reaches waiting and running requests.
/// - `isPaused` lets running requests finish and starts nothing new.
/// - `didComplete` fires when nothing is left to do — also when everything
///   asked for was already cached.
/// - Stopping (or releasing the prefetcher) cancels everything it started.
public final class ImagePrefetcher: Sendable {
    /// Where prefetched images end up.
    public enum Destination: Sendable, Hashable {
        /// The original data in the disk cache; never decoded.
        case diskCache
        /// The processed image, in memory and on disk as the pipeline's policy says.
        case memoryCache
    }

    /// The pipeline doing the work.
    public let pipeline: ImagePipeline
    /// Where prefetched images end up.
    public let destination: Destination

    private struct Entry {
        let task: ImageTask
        var item: WorkItem?
        let dedupeKey: ImageLoadKey?
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var byKey: [ImageLoadKey: UInt64] = [:]
        var priority: ImagePriority?
        var didComplete: (@Sendable () -> Void)?
        /// Calls of `startPrefetching` in progress: no completion fires
        /// while one is still adding requests (some finish at once).
        var startingCount = 0
    }

    private let state: Mutex<State>
    private let queue: WorkQueue

    /// Creates a prefetcher. Nuke's defaults: 2 concurrent requests, priority `.low`, memory cache.
    public init(
        pipeline: ImagePipeline, destination: Destination = .memoryCache,
        maxConcurrentRequestCount: Int = 2, priority: ImagePriority? = .low
    ) {
        self.pipeline = pipeline
        self.destination = destination
        self.queue = WorkQueue(name: "prefetcher", maxConcurrentOperationCount: maxConcurrentRequestCount)
        self.state = Mutex(State(priority: priority))
    }

    deinit {
        stopPrefetching()
    }

    /// The priority of every prefetch; `nil` keeps each request's own.
    public var priority: ImagePriority? {
        get { state.withLock { $0.priority } }
        set {
            let entries = state.withLock { state in
                state.priority = newValue
                return Array(state.entries.values)
            }
            guard let newValue else { return }
            for entry in entries {
                entry.item?.setPriority(newValue)
                entry.task.priority = newValue
            }
        }
    }

    /// When true, running requests finish and nothing new starts.
    public var isPaused: Bool {
        get { queue.isSuspended }
        set { queue.isSuspended = newValue }
    }

    /// Called (on any thread) whenever the prefetcher runs out of work.
    public var didComplete: (@Sendable () -> Void)? {
        get { state.withLock { $0.didComplete } }
        set { state.withLock { $0.didComplete = newValue } }
    }

    /// The number of requests waiting or running.
    public var pendingCount: Int { state.withLock { $0.entries.count } }

    // MARK: Starting and stopping

    /// Starts prefetching `urls`.
    public func startPrefetching(with urls: [URL]) {
        startPrefetching(with: urls.map { ImageRequest(url: $0) })
    }

    /// Starts prefetching `requests`, skipping those already being
    /// prefetched and those already in memory (unless their encoded variant
    /// is to be on disk and must still be made).
    public func startPrefetching(with requests: [ImageRequest]) {
        state.withLock { $0.startingCount += 1 }
        defer {
            state.withLock { $0.startingCount -= 1 }
            completeIfIdle()
        }
        for request in requests {
            let key = ImageLoadKey(request)
            if destination == .memoryCache, ImageTaskRunner(pipeline: pipeline).imageCompletingPrefetch(of: request) != nil {
                continue
            }
            if state.withLock({ $0.byKey[key] != nil }) { continue }
            enqueue(request, dedupeKey: key)
        }
    }

    /// Prefetches one request and returns its task, to follow its events.
    /// Unlike `startPrefetching`, identical requests are not merged here
    /// (the pipeline still shares their work).
    public func prefetch(_ request: ImageRequest) -> ImageTask {
        enqueue(request, dedupeKey: nil)
    }

    /// Cancels the prefetching of `requests`.
    public func stopPrefetching(with requests: [ImageRequest]) {
        let tasks = state.withLock { state in
            requests.compactMap { state.byKey[ImageLoadKey($0)].flatMap { state.entries[$0]?.task } }
        }
        for task in tasks { task.cancel() }
    }

    /// Cancels everything.
    public func stopPrefetching() {
        let tasks = state.withLock { $0.entries.values.map(\.task) }
        for task in tasks { task.cancel() }
    }

    // MARK: Running

    @discardableResult
    private func enqueue(_ request: ImageRequest, dedupeKey: ImageLoadKey?) -> ImageTask {
        var request = request
        if let priority = state.withLock({ $0.priority }) { request.priority = priority }
        let task = pipeline.makeTask(request)
        state.withLock { state in
            state.entries[task.id] = Entry(task: task, item: nil, dedupeKey: dedupeKey)
            if let dedupeKey { state.byKey[dedupeKey] = task.id }
        }
        let work: ImagePipeline.Work = destination == .diskCache ? .prefetchData : .prefetchImage
        let item = queue.enqueue(priority: request.priority) { [pipeline] finish in
            task.whenFinished { _ in finish() }
            pipeline.start(task, work)
        }
        state.withLock { state in state.entries[task.id]?.item = item }
        task.whenFinished { [weak self] _ in
            item.cancel() // a task cancelled while waiting never takes a slot
            self?.remove(task)
        }
        return task
    }

    private func remove(_ task: ImageTask) {
        state.withLock { state in
            if let key = state.entries.removeValue(forKey: task.id)?.dedupeKey, state.byKey[key] == task.id {
                state.byKey[key] = nil
            }
        }
        completeIfIdle()
    }

    private func completeIfIdle() {
        let callback = state.withLock { $0.entries.isEmpty && $0.startingCount == 0 ? $0.didComplete : nil }
        callback?()
    }
}
