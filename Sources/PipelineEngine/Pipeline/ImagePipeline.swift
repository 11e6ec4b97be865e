import Foundation
import Synchronization
import WarmerSupport

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
    public convenience init(configuration: Configuration) {
        self.init(configuration: configuration, rateLimiterClock: ContinuousClock())
    }

    /// Creates a pipeline whose rate limiter keeps time with `rateLimiterClock`
    /// (a test's manual clock).
    init(configuration: Configuration, rateLimiterClock: some TimerClock) {
        self.configuration = configuration
        self.cache = Cache(dataCache: configuration.dataCache, imageCache: configuration.imageCache)
        self.queues = StageQueues(configuration.concurrency)
        let coalescing = configuration.isTaskCoalescingEnabled
        self.dataTasks = TaskPool(isCoalescingEnabled: coalescing)
        self.imageTasks = TaskPool(isCoalescingEnabled: coalescing)
        self.encodeTasks = TaskPool(isCoalescingEnabled: coalescing)
        self.rateLimiter = RateLimiter(configuration: configuration.rateLimit, clock: rateLimiterClock)
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

    // MARK: Images

    /// Loads the decoded, processed image: from the memory cache, else an
    /// encoded copy on disk, else by decoding the original data (from disk or
    /// the network) and processing it. Stores the result in memory and, as
    /// the `dataCachePolicy` says, the original and the encoded result on disk.
    public func loadImage(for request: ImageRequest) -> ImageTask {
        start(makeTask(request), .loadImage)
    }

    /// Makes sure the processed image is cached, doing no more work than
    /// needed: done if it is in memory, or if its encoded copy is on disk
    /// (which is not read back or decoded); otherwise loaded as `loadImage`
    /// does. This is the work of a processed-destination prefetch.
    public func prefetchImage(for request: ImageRequest) -> ImageTask {
        start(makeTask(request), .prefetchImage)
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

    /// Starts `task` (see `ImageTaskRunner`), unless it was cancelled already. Returns it.
    @discardableResult
    func start(_ task: ImageTask, _ work: Work) -> ImageTask {
        guard !task.isFinished else { return task }
        ImageTaskRunner(pipeline: self).run(task, work)
        return task
    }
}
