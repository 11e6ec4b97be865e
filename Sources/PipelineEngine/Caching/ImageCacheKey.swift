import Foundation

/// The memory cache key of a decoded image: the URL, the thumbnail and the
/// processors. A struct of hashable parts, so building and hashing one costs
/// no string formatting on the hot path.
public struct ImageCacheKey: Sendable, Hashable {
    /// The image's URL, as `absoluteString`.
    public let url: String
    /// The thumbnail the image was decoded to, if any.
    public let thumbnail: ThumbnailOptions?
    /// The processors applied, in order.
    public let processors: [ImageProcessor]

    /// The key of the image `request` asks for.
    public init(_ request: ImageRequest) {
        self.url = request.url.absoluteString
        self.thumbnail = request.thumbnail
        self.processors = request.processors
    }
}

extension ImageRequest {
    /// The disk cache key of the original data: the URL's absolute string.
    public var dataCacheKey: String { url.absoluteString }

    /// The disk cache key of the encoded image.
    ///
    /// The URL, then `|`-separated identifiers of the thumbnail, each
    /// processor and the output encoding, e.g.
    /// `https://a.example/x.jpg|thumb(320)|webp(q=80)`; `URL|reencoded` for a
    /// request with nothing but `reencodeImage`. A plain request is keyed by
    /// its URL alone, so that under `storeEncodedImages` it stores its
    /// re-encoded image under the plain key, as Nuke does. Documented in
    /// docs/cache-layout.md.
    public var processedDataCacheKey: String {
        guard isVariant else { return dataCacheKey }
        var key = url.absoluteString
        if let thumbnail { key += "|" + thumbnail.identifier }
        for processor in processors { key += "|" + processor.identifier }
        if let encoding { key += "|" + encoding.identifier }
        if !isProcessed, encoding == nil { key += "|reencoded" }
        return key
    }

    /// The memory cache key.
    public var imageCacheKey: ImageCacheKey { ImageCacheKey(self) }
}
