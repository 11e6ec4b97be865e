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
