import Foundation
import Synchronization

/// Loads image requests through the caches, the network and libvips.
///
/// The façade of PipelineEngine, after Nuke's `ImagePipeline`. Every call
/// returns an `ImageTask` at once; the work runs in a graph of shared tasks
/// (see `PipelineTask`):
///
/// ```
/// loadImage([p1, p2]) ─▶ encode? ─▶ image [p1,p2] ─▶ image [p1] ─▶ image [] ─▶ data (URL)
///                                   memory, disk      memory, disk  memory, disk   disk, network
/// ```
///
/// Each level first looks in the memory cache, then on disk, under its own
/// key, so `[p1]` already in memory serves `[p1, p2]` with one processing step
/// and no download. Identical levels of concurrent requests are one task.
/// Downloads, disk reads, decodes, processing steps and encodes each run on
/// their own `WorkQueue`, in priority order; libvips work runs on the queues'
/// dedicated threads, never on Swift's cooperative pool.
public final class ImagePipeline: Sendable {
    /// The configuration the pipeline was created with.
    public let configuration: Configuration
    /// Direct access to every cache layer.
    public let cache: Cache
    /// Work done so far, by stage.
    public let counters = PipelineCounters()

    let queues: StageQueues
    let dataTasks: TaskPool<DataLoadKey, LoadedData>
    let imageTasks: TaskPool<ImageLoadKey, LoadedImage>
    let encodeTasks: TaskPool<ImageLoadKey, LoadedImage>
    /// Paces downloads, globally and per host.
    let rateLimiter: RateLimiter
    private let nextTaskID = Atomic<UInt64>(0)

    /// Creates a pipeline.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.cache = Cache(dataCache: configuration.dataCache, imageCache: configuration.imageCache)
        self.queues = StageQueues(configuration.concurrency)
        let coalescing = configuration.isTaskCoalescingEnabled
        self.dataTasks = TaskPool(isCoalescingEnabled: coalescing)
        self.imageTasks = TaskPool(isCoalescingEnabled: coalescing)
        self.encodeTasks = TaskPool(isCoalescingEnabled: coalescing)
        self.rateLimiter = RateLimiter(configuration: configuration.rateLimit)
    }

    /// Live shared downloads (for tests and metrics).
    var activeDataFetchCount: Int { dataTasks.count }

    // MARK: Data

    /// Loads the request's original data — processors and thumbnail are
    /// ignored — from the disk cache, else from the network, storing it as
    /// the `dataCachePolicy` says. The response carries the bytes.
    public func loadData(for request: ImageRequest) -> ImageTask {
        start(makeTask(request), .loadData)
    }

    /// Makes sure the request's original data is in the disk cache, never
    /// decoding it: a cached entry is not read back, a missing one is
    /// downloaded and stored. The response carries no bytes. This is the
    /// work of a disk-destination prefetch.
    public func prefetchData(for request: ImageRequest) -> ImageTask {
        start(makeTask(request), .prefetchData)
    }

    private func runPrefetchData(_ task: ImageTask) {
        let request = task.request
        let key = request.dataCacheKey
        guard let dataCache = configuration.dataCache, request.readsDiskCache else {
            return subscribeToData(task, wantsBytes: false)
        }
        let entry = diskEntry(for: key)
        if case .fresh(_, let cacheURL?) = entry {
            let response = ImageResponse(request: request, source: .disk, byteCount: dataCache.sizeOfData(for: key) ?? 0,
                                         cacheURL: cacheURL, data: nil)
            task.finish(with: .success(response))
            return
        }
        subscribeToData(task, wantsBytes: false, entry: entry)
    }

    // MARK: Images

    /// Loads the decoded, processed image: from the memory cache, else an
    /// encoded copy on disk, else by decoding the original data (from disk or
    /// the network) and processing it. Stores the result in memory and, as
    /// the `dataCachePolicy` says, the original and the encoded result on disk.
    public func loadImage(for request: ImageRequest) -> ImageTask {
        start(makeTask(request), .loadImage)
    }

    private func runLoadImage(_ task: ImageTask) {
        if let image = cachedImage(for: task.request) {
            task.finish(with: .success(ImageResponse(request: task.request, source: .memory, byteCount: image.cost,
                                                     cacheURL: nil, data: nil, image: image)))
            return
        }
        subscribeToImage(task)
    }

    /// Makes sure the processed image is cached, doing no more work than
    /// needed: done if it is in memory, or if its encoded copy is on disk
    /// (which is not read back or decoded); otherwise loaded as `loadImage`
    /// does. This is the work of a processed-destination prefetch.
    public func prefetchImage(for request: ImageRequest) -> ImageTask {
        start(makeTask(request), .prefetchImage)
    }

    private func runPrefetchImage(_ task: ImageTask) {
        let request = task.request
        if let image = cachedImage(for: request) {
            task.finish(with: .success(ImageResponse(request: request, source: .memory, byteCount: image.cost,
                                                     cacheURL: nil, data: nil, image: nil)))
            return
        }
        guard let dataCache = configuration.dataCache, request.readsDiskCache,
              configuration.dataCachePolicy.mayHaveEncodedImage(for: request) else {
            return subscribeToImage(task)
        }
        let key = request.processedDataCacheKey
        let finishFromDisk: @Sendable (ImageResponse.Source, Int) -> Void = { source, attempts in
            task.finish(with: .success(ImageResponse(request: request, source: source, byteCount: dataCache.sizeOfData(for: key) ?? 0,
                                                     cacheURL: dataCache.url(for: key), data: nil, downloadAttempts: attempts)))
        }
        switch diskEntry(for: key) {
        case .fresh(_, _?):
            finishFromDisk(.disk, 0)
        case .stale(let metadata) where dataCache.containsData(for: key):
            // Confirm the source is unchanged: then the variant is current,
            // and is neither read nor decoded.
            let check = revalidateVariant(
                of: request, metadata: metadata, origins: { [request] }, priority: task.priority,
                onProgress: { event in task.report(event) }
            ) { [self] outcome in
                switch outcome {
                case .current(let source, let attempts): finishFromDisk(source, attempts)
                case .changed(let source): subscribeToImage(task, source: source)
                case .failed(let error): task.finish(with: .failure(error))
                }
            }
            task.attach(check.erased)
        default:
            subscribeToImage(task)
        }
    }

    // MARK: Tasks

    /// What a task does, for callers that create a task first and start it
    /// later (`ImagePrefetcher` waits for a free slot in between).
    enum Work: Sendable {
        case loadData, prefetchData, loadImage, prefetchImage
    }

    /// A task that has not started; see `start`.
    func makeTask(_ request: ImageRequest) -> ImageTask {
        ImageTask(id: nextTaskID.add(1, ordering: .relaxed).newValue, request: request)
    }

    /// Starts `task`, unless it was cancelled already. Returns it.
    @discardableResult
    func start(_ task: ImageTask, _ work: Work) -> ImageTask {
        guard !task.isFinished else { return task }
        switch work {
        case .loadData: subscribeToData(task, wantsBytes: true)
        case .prefetchData: runPrefetchData(task)
        case .loadImage: runLoadImage(task)
        case .prefetchImage: runPrefetchImage(task)
        }
        return task
    }

    private func cachedImage(for request: ImageRequest) -> DecodedImage? {
        guard request.readsMemoryCache, let imageCache = configuration.imageCache else { return nil }
        return imageCache.image(for: request.imageCacheKey)
    }

    private func subscribeToData(_ task: ImageTask, wantsBytes: Bool, entry: DiskEntry? = nil) {
        let request = task.request
        let subscription = subscribeData(request, needsBytes: wantsBytes, origins: { [request] }, priority: task.priority,
                                         entry: entry) { [self] event in
            guard case .value(let loaded) = event else { return task.report(event) }
            guard wantsBytes else {
                task.finish(with: .success(ImageResponse(
                    request: request, source: loaded.source, byteCount: loaded.byteCount(in: configuration.dataCache),
                    cacheURL: loaded.cacheURL, data: nil, downloadAttempts: loaded.downloadAttempts)))
                return
            }
            deliverBytes(of: loaded, to: task)
        }
        task.attach(subscription.erased)
    }

    /// Finishes a `loadData` task with the bytes, reading a cached file on
    /// the data-caching queue. The queued read is the task's work from then
    /// on (as in Nuke): a priority change moves it, a cancel takes it out of
    /// the queue. When the cache held only metadata (or the file vanished),
    /// downloads the data again, skipping the cache.
    private func deliverBytes(of loaded: LoadedData, to task: ImageTask) {
        let request = task.request
        let finish: @Sendable (Data) -> Void = { data in
            task.finish(with: .success(ImageResponse(
                request: request, source: loaded.source, byteCount: data.count,
                cacheURL: loaded.cacheURL, data: data, downloadAttempts: loaded.downloadAttempts)))
        }
        if let body = loaded.body { return finish(body) }
        let read = queues.dataCaching.enqueueBlocking(priority: task.priority) { [self] in
            guard !task.isFinished else { return }
            if let data = loaded.bytes(in: configuration.dataCache) { return finish(data) }
            var uncached = request
            uncached.options.insert(.disableDiskCacheReads)
            let retry = subscribeData(uncached, origins: { [request] }, priority: task.priority) { event in
                guard case .value(let loaded) = event else { return task.report(event) }
                finish(loaded.body ?? Data())
            }
            task.attach(retry.erased)
        }
        task.attach(AnySubscription(setPriority: read.setPriority, unsubscribe: read.cancel))
    }

    /// - Parameter source: the original data, when a variant check just loaded it.
    private func subscribeToImage(_ task: ImageTask, source: LoadedData? = nil) {
        let request = task.request
        let handler: PipelineTask<LoadedImage>.Handler = { [configuration] event in
            guard case .value(let loaded) = event else { return task.report(event) }
            if request.writesMemoryCache, loaded.source != .memory {
                configuration.imageCache?.store(loaded.image, for: request.imageCacheKey)
            }
            task.finish(with: .success(ImageResponse(
                request: request, source: loaded.source,
                byteCount: loaded.encoded?.count ?? loaded.image.cost,
                cacheURL: loaded.cacheURL, data: loaded.encoded, image: loaded.image,
                downloadAttempts: loaded.downloadAttempts)))
        }
        let subscription = configuration.dataCachePolicy.storesEncodedImage(for: request)
            ? subscribeEncoded(request, priority: task.priority, source: source, handler)
            : subscribeImage(request, origins: { [request] }, priority: task.priority, source: source, handler)
        task.attach(subscription.erased)
    }
}
