import Foundation

/// What to load: a URL, how to process it, how urgently, and which caches may be used.
///
/// A request is a value: changing a running task's priority goes through
/// `ImageTask.priority`, not through the request it was created with.
public struct ImageRequest: Sendable, Hashable {
    /// The image's URL (`http` or `https`).
    public var url: URL
    /// Processors applied in order after decoding.
    public var processors: [ImageProcessor]
    /// Decode straight to a thumbnail (libvips shrink-on-load), before any processor.
    public var thumbnail: ThumbnailOptions?
    /// The format the processed image is encoded to when it is stored on
    /// disk; `nil` keeps the source's format (GIF becomes PNG).
    public var encoding: OutputEncoding?
    /// How urgently the request should run relative to others.
    public var priority: ImagePriority
    /// Cache and loading options.
    public var options: Options

    /// Creates a request.
    public init(
        url: URL, processors: [ImageProcessor] = [], thumbnail: ThumbnailOptions? = nil,
        encoding: OutputEncoding? = nil, priority: ImagePriority = .normal, options: Options = []
    ) {
        self.url = url
        self.processors = processors
        self.thumbnail = thumbnail
        self.encoding = encoding
        self.priority = priority
        self.options = options
    }

    /// Cache and loading options, as in Nuke.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt16
        /// Creates options from raw bits.
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// Do not look for the image in the memory cache.
        public static let disableMemoryCacheReads = Options(rawValue: 1 << 4)
        /// Do not store the image in the memory cache.
        public static let disableMemoryCacheWrites = Options(rawValue: 1 << 5)
        /// Do not look for data in the disk cache.
        public static let disableDiskCacheReads = Options(rawValue: 1 << 0)
        /// Do not write data to the disk cache.
        public static let disableDiskCacheWrites = Options(rawValue: 1 << 1)
        /// Ignore every cached copy (memory and disk) and load from the
        /// origin; the caches are still written.
        public static let reloadIgnoringCachedData = Options(rawValue: 1 << 2)
        /// Use only cached data; a miss fails with `dataMissingInCache` and loads nothing.
        public static let returnCacheDataDontLoad = Options(rawValue: 1 << 3)
        /// Decode and encode the image even when nothing else asks for it
        /// (no thumbnail, processor or encoding): the request is then a
        /// variant of its own, `URL|reencoded`, in the source's format,
        /// rather than the original bytes. Not in Nuke: it is what the
        /// worker's `processed` destination with an empty spec means.
        public static let reencodeImage = Options(rawValue: 1 << 6)
    }

    /// Whether the request asks for more than the original image: a
    /// thumbnail or at least one processor.
    public var isProcessed: Bool { thumbnail != nil || !processors.isEmpty }

    /// Whether the request asks for an encoded image rather than the original
    /// bytes: it is processed, names an output `encoding`, or has
    /// `reencodeImage`. Such a request is stored under `processedDataCacheKey`
    /// (see `DataCachePolicy`).
    public var isVariant: Bool { isProcessed || encoding != nil || options.contains(.reencodeImage) }

    var readsMemoryCache: Bool {
        options.isDisjoint(with: [.disableMemoryCacheReads, .reloadIgnoringCachedData])
    }
    var writesMemoryCache: Bool { !options.contains(.disableMemoryCacheWrites) }
    var readsDiskCache: Bool {
        options.isDisjoint(with: [.disableDiskCacheReads, .reloadIgnoringCachedData])
    }
    var writesDiskCache: Bool { !options.contains(.disableDiskCacheWrites) }

    /// The same request without its last processor (one level up the task graph).
    var droppingLastProcessor: ImageRequest {
        var request = self
        request.processors.removeLast()
        return request
    }
}
