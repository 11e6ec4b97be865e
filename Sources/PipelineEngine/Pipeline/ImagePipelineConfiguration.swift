import Foundation
import Logging

extension ImagePipeline {
    /// The pipeline's parts, policies and limits.
    public struct Configuration: Sendable {
        /// Downloads data.
        public var dataLoader: DataLoader
        /// The disk cache; `nil` disables disk caching.
        public var dataCache: DataCache?
        /// The memory cache of decoded images; `nil` disables it.
        public var imageCache: ImageCache?
        /// Which data goes to the disk cache. Default: `storeOriginalData`, as in Nuke.
        public var dataCachePolicy: DataCachePolicy = .storeOriginalData
        /// Whether the disk cache follows HTTP caching headers. Default:
        /// `aggressive` (store everything, never revalidate), as in Nuke.
        public var dataCacheMode: DataCacheMode = .aggressive
        /// Which failed downloads are tried again, and when.
        public var retryPolicy = RetryPolicy()
        /// How fast downloads start, globally and per host. Default: unlimited
        /// (a host answering 429 or 503 is still slowed down).
        public var rateLimit = RateLimiterConfiguration()
        /// Whether identical work is shared between tasks. Default: true.
        public var isTaskCoalescingEnabled = true
        /// Whether a downloaded body must begin like an image the pipeline
        /// reads (JPEG, PNG, GIF, WebP, AVIF, HEIF): anything else (an HTML
        /// soft 404, a login page) fails as `notAnImage` and is not stored.
        /// Default: true; off for warming other kinds of files.
        public var requiresImageData = true
        /// Limits against hostile images (pixel count, allowed formats).
        public var imageLimits = ImageLimits()
        /// Limits on what processing may produce (output size, blur, steps).
        public var processingLimits = ProcessingLimits()
        /// Decoded-image bytes in flight: decodes wait for room, an image
        /// larger than it fails (`overMemoryBudget`); `nil` for no limit.
        /// Default: 1 GiB (docs/pipeline.md, "Memory").
        public var memoryBudget: MemoryBudget? = MemoryBudget(capacity: 1 << 30)
        /// How many operations of each stage run at once.
        public var concurrency = StageConcurrency()
        /// Where the pipeline logs: download retries and failures at debug,
        /// a disk cache write that fails at warning.
        public var logger = Logger(label: "warmer.pipeline")

        /// Creates a configuration.
        public init(dataLoader: DataLoader = DataLoader(), dataCache: DataCache?, imageCache: ImageCache? = nil) {
            self.dataLoader = dataLoader
            self.dataCache = dataCache
            self.imageCache = imageCache
        }
    }

    /// Concurrent operations per stage. Each stage has its own queue, served
    /// in priority order, FIFO within a priority.
    public struct StageConcurrency: Sendable, Hashable {
        /// Downloads in flight. Default: 32 (Nuke, for a phone: 6).
        public var dataLoading = 32
        /// Disk cache reads of data to decode. Default: 4.
        public var dataCaching = 4
        /// Decodes. Default: one per core, plus one (Nuke: 1).
        public var decoding = StageConcurrency.imageThreads
        /// Processing steps. Default: one per core, plus one (Nuke: 2).
        public var processing = StageConcurrency.imageThreads
        /// Encodes. Default: one per core, plus one (Nuke: 1).
        public var encoding = StageConcurrency.imageThreads

        /// Creates the server defaults.
        public init() {}

        /// The number of active processor cores.
        public static var cores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

        /// The default for CPU stages: one per core, plus one. libvips runs
        /// one thread per image here (see `Vips`); the extra thread keeps the
        /// cores busy while an operation waits on memory or a handoff
        /// (bench/processed.sh measured it ~5% faster than one per core).
        public static var imageThreads: Int { cores + 1 }
    }
}
