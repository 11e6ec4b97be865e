import Foundation

/// The outcome of a successful `ImageTask`.
public struct ImageResponse: Sendable {
    /// The request that produced the response.
    public let request: ImageRequest
    /// Where the result came from.
    public let source: Source
    /// The size of the data, in bytes.
    public let byteCount: Int
    /// Where the data lives in the disk cache, when it is there.
    public let cacheURL: URL?
    /// The bytes: the original data for `loadData`, the encoded image for
    /// `loadImage` when it was encoded or read from disk; `nil` for
    /// prefetches, which never read a cached entry back.
    public let data: Data?
    /// The decoded, processed image, for `loadImage`.
    public let image: DecodedImage?
    /// Download attempts made for the response (0 when no download was
    /// needed; more than 1 after retries).
    public let downloadAttempts: Int

    init(
        request: ImageRequest, source: Source, byteCount: Int, cacheURL: URL?, data: Data?,
        image: DecodedImage? = nil, downloadAttempts: Int = 0
    ) {
        self.request = request
        self.source = source
        self.byteCount = byteCount
        self.cacheURL = cacheURL
        self.data = data
        self.image = image
        self.downloadAttempts = downloadAttempts
    }

    /// Where a response came from.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The memory cache.
        case memory
        /// The disk cache.
        case disk
        /// The origin, over the network.
        case network
        /// The disk cache, after the origin confirmed the entry is current
        /// (a 304 to a conditional request; HTTP cache mode).
        case revalidated
    }
}

/// Why an `ImageTask` failed.
public enum ImagePipelineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request had `returnCacheDataDontLoad` and the data was not cached.
    case dataMissingInCache
    /// The download failed.
    case dataLoadingFailed(DataLoaderError)
    /// The data was downloaded but could not be written to the disk cache.
    case dataCacheWriteFailed(String)
    /// The origin answered with something that is not an image the
    /// pipeline reads (an HTML page, say): nothing was stored. The
    /// associated text shows how the body begins.
    case notAnImage(String)
    /// Decoding, processing or encoding failed, or the image was refused
    /// (too many pixels, a format that is not allowed).
    case imageProcessingFailed(ImageProcessingError)
    /// The task was cancelled.
    case cancelled

    /// A short, stable identifier for machines (events, metrics).
    public var code: String {
        switch self {
        case .dataMissingInCache: "data_missing_in_cache"
        case .dataLoadingFailed(let error): error.code
        case .dataCacheWriteFailed: "cache_write_failed"
        case .notAnImage: "not_an_image"
        case .imageProcessingFailed(let error): error.code
        case .cancelled: "cancelled"
        }
    }

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .dataMissingInCache: "The data is not in the cache and the request forbids loading it"
        case .dataLoadingFailed(let error): error.description
        case .dataCacheWriteFailed(let reason): "Could not write to the disk cache: \(reason)"
        case .notAnImage(let beginning): "The response is not an image (JPEG, PNG, GIF, WebP, AVIF or HEIF); it begins \(beginning)"
        case .imageProcessingFailed(let error): error.description
        case .cancelled: "The task was cancelled"
        }
    }
}
