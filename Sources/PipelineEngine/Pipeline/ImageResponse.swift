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
