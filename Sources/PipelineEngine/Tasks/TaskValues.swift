import Foundation

/// Original data, as the data level of the task graph produces it: the
/// downloaded bytes, or where they are in the disk cache (read only by the
/// consumers that need them, on their own threads: a prefetch never reads).
struct LoadedData: Sendable {
    /// The bytes, when they were downloaded now.
    let body: Data?
    /// Where the data lives in the disk cache, when it was stored or found there.
    let cacheURL: URL?
    /// Where the data came from.
    let source: ImageResponse.Source
    /// The response's HTTP metadata (HTTP cache mode, storable responses only).
    var metadata: HTTPCacheMetadata? = nil
    /// Download attempts made (0 when served by the cache).
    var downloadAttempts = 0

    /// The bytes: the body, else the cached file's contents, read through
    /// `cache` (a file whose write is still queued reads from memory). `nil`
    /// when the cache holds only the entry's metadata, or the file vanished:
    /// the caller then downloads the data.
    func bytes(in cache: DataCache?) -> Data? {
        body ?? cacheURL.flatMap { url in cache.map { $0.contents(ofFileAt: url) } ?? FileManager.default.contents(atPath: url.path) }
    }

    /// The size of the data in bytes, without reading a cached file.
    func byteCount(in cache: DataCache?) -> Int {
        if let body { return body.count }
        guard let cacheURL, let cache else { return 0 }
        return cache.size(ofFileAt: cacheURL) ?? 0
    }
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
    /// The source's HTTP metadata (HTTP cache mode), which an encoded
    /// variant stores as its own.
    var sourceMetadata: HTTPCacheMetadata? = nil
    /// Download attempts made for the source (0 when served by a cache).
    var downloadAttempts = 0
}

/// The key of a shared data task: the URL, and whether the task may only
/// look in the cache (so a cache-only request never joins a real download,
/// nor a download a cache-only lookup). Other options do not split a
/// download; neither does what the subscribers do with the data: a prefetch
/// of the raw bytes and a decode of the same URL share one download (a
/// subscriber that needs bytes the shared task did not bring — a 304 to a
/// revalidation when only the metadata was cached — downloads them itself).
struct DataLoadKey: Hashable, Sendable {
    let url: String
    let cacheOnly: Bool
    /// False for a download that must not use the cache (the fallback when
    /// the cache held metadata but not the bytes a decode needs).
    let readsCache: Bool

    init(_ request: ImageRequest) {
        url = request.dataCacheKey
        cacheOnly = request.options.contains(.returnCacheDataDontLoad)
        readsCache = request.readsDiskCache
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
