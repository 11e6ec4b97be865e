import Foundation
import Logging

extension ImagePipeline {
    /// The pipeline's parts, policies and limits.
    public struct Configuration: Sendable {
        /// Downloads data. Default: `DataLoader` (libcurl).
        public var dataLoader: any DataLoading
        /// The disk cache; `nil` disables disk caching. Usually a `DataCache`.
        public var dataCache: (any DataCaching)?
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
        /// Limits shared with other processes (a fleet of workers), asked
        /// after `rateLimit` before each download attempt. Default: none.
        public var downloadPermits: (any DownloadPermits)?
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
        /// Decodes data (the decoding stage). Default: `VipsDecoder` (libvips).
        public var imageDecoder: any ImageDecoding = VipsDecoder()
        /// Applies processing steps (the processing stage). Default: `VipsProcessor` (libvips).
        public var imageProcessor: any ImageProcessing = VipsProcessor()
        /// Encodes processed images (the encoding stage). Default: `VipsEncoder` (libvips).
        public var imageEncoder: any ImageEncoding = VipsEncoder()
        /// Where the pipeline logs: download retries and failures at debug,
        /// a disk cache write that fails at warning.
        public var logger = Logger(label: "warmer.pipeline")

        /// Creates a configuration.
        public init(dataLoader: any DataLoading = DataLoader(), dataCache: (any DataCaching)?, imageCache: ImageCache? = nil) {
            self.dataLoader = dataLoader
            self.dataCache = dataCache
            self.imageCache = imageCache
        }

        /// The loader's request headers with lowercased names, which a stored
        /// response's `Vary` refers to (HTTP cache mode).
        var varyRequestHeaders: [String: String] {
            Dictionary(dataLoader.requestHeaders.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        }
    }
}
