import Foundation

/// A decoded image, as the image levels of the task graph produce it.
struct LoadedImage: Sendable {
    let image: DecodedImage
    /// Where the chain found its input: memory, disk or network.
    let source: ImageResponse.Source
    /// The format of the original data, the default output format.
    let sourceFormat: ImageFormat?
    /// The encoded image, when it was read from disk or encoded.
    let encoded: Data?
    /// Where `encoded` lives in the disk cache.
    let cacheURL: URL?
    /// The source's HTTP metadata (HTTP cache mode), which an encoded
    /// variant stores as its own.
    var sourceMetadata: HTTPCacheMetadata? = nil
    /// Download attempts made for the source (0 when served by a cache).
    var downloadAttempts = 0
}
