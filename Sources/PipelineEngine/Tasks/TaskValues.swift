import Foundation

/// Original data, as the data level of the task graph produces it.
struct LoadedData: Sendable {
    let data: Data
    let source: ImageResponse.Source
    /// Where the data lives in the disk cache, when it was stored or read there.
    let cacheURL: URL?
}

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
}

/// The key of a shared data task: the URL, and whether the task may only
/// look in the cache (so a cache-only request never joins a real download,
/// nor a download a cache-only lookup). Other options do not split a download.
struct DataLoadKey: Hashable, Sendable {
    let url: String
    let cacheOnly: Bool

    init(_ request: ImageRequest) {
        url = request.dataCacheKey
        cacheOnly = request.options.contains(.returnCacheDataDontLoad)
    }
}

/// The key of a shared image or encoding task: what is produced, and the
/// options that decide which caches it may use.
struct ImageLoadKey: Hashable, Sendable {
    let image: ImageCacheKey
    let encoding: ImageEncoding?
    let options: ImageRequest.Options

    init(_ request: ImageRequest) {
        image = ImageCacheKey(request)
        encoding = request.encoding
        options = request.options
    }
}
