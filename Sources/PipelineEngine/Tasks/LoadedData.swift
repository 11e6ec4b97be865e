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
    func bytes(in cache: (any DataCaching)?) -> Data? {
        body ?? cacheURL.flatMap { url in cache.map { $0.contents(ofFileAt: url) } ?? FileManager.default.contents(atPath: url.path) }
    }

    /// The size of the data in bytes, without reading a cached file.
    func byteCount(in cache: (any DataCaching)?) -> Int {
        if let body { return body.count }
        guard let cacheURL, let cache else { return 0 }
        return cache.size(ofFileAt: cacheURL) ?? 0
    }
}
