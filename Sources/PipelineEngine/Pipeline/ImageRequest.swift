import Foundation

/// What to load: a URL, how urgently, and which caches may be used.
public struct ImageRequest: Sendable, Hashable {
    /// The image's URL (`http` or `https`).
    public var url: URL
    /// How urgently the request should run relative to others.
    public var priority: ImagePriority
    /// Cache and loading options.
    public var options: Options

    /// Creates a request.
    public init(url: URL, priority: ImagePriority = .normal, options: Options = []) {
        self.url = url
        self.priority = priority
        self.options = options
    }

    /// The disk cache key of the original data: the URL's absolute string.
    public var dataCacheKey: String { url.absoluteString }

    /// Cache and loading options, as in Nuke.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt16
        /// Creates options from raw bits.
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// Do not look for the data in the disk cache.
        public static let disableDiskCacheReads = Options(rawValue: 1 << 0)
        /// Do not write downloaded data to the disk cache.
        public static let disableDiskCacheWrites = Options(rawValue: 1 << 1)
        /// Ignore every cached copy and load from the origin (caches are still written).
        public static let reloadIgnoringCachedData = Options(rawValue: 1 << 2)
        /// Use only cached data; a miss fails with `dataMissingInCache` and loads nothing.
        public static let returnCacheDataDontLoad = Options(rawValue: 1 << 3)
    }

    var readsDiskCache: Bool {
        !options.contains(.disableDiskCacheReads) && !options.contains(.reloadIgnoringCachedData)
    }

    var writesDiskCache: Bool { !options.contains(.disableDiskCacheWrites) }
}

/// A request's priority: five levels, as in Nuke.
public enum ImagePriority: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    case veryLow, low, normal, high, veryHigh

    /// Orders from `veryLow` to `veryHigh`.
    public static func < (lhs: ImagePriority, rhs: ImagePriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
