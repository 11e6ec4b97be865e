import Foundation

/// What the disk cache holds for a key, as the task graph sees it under the
/// pipeline's `dataCacheMode`.
enum DiskEntry: Sendable {
    /// Usable without asking the origin: present (aggressive mode), or
    /// fresh (HTTP mode). `cacheURL` is `nil` when only the metadata is
    /// stored (HTTP mode records the source's metadata even when the policy
    /// keeps no original data, so variants can be revalidated).
    case fresh(metadata: HTTPCacheMetadata?, cacheURL: URL?)
    /// Stale, with a validator: ask the origin whether it changed.
    case stale(HTTPCacheMetadata)
    /// Nothing usable: download.
    case missing

    /// The state of `key`'s entry in `configuration`'s disk cache. Refreshes
    /// the entry's access date when it has data.
    init(for key: String, in configuration: ImagePipeline.Configuration, now: Date = Date()) {
        guard let dataCache = configuration.dataCache else {
            self = .missing
            return
        }
        switch configuration.dataCacheMode {
        case .aggressive:
            self = dataCache.containsData(for: key) ? .fresh(metadata: nil, cacheURL: dataCache.url(for: key)) : .missing
        case .http:
            guard let metadata = dataCache.metadata(for: key).flatMap(HTTPCacheMetadata.decode),
                  metadata.matchesVary(requestHeaders: configuration.varyRequestHeaders) else {
                self = .missing
                return
            }
            if metadata.isFresh(at: now) {
                self = .fresh(metadata: metadata, cacheURL: dataCache.containsData(for: key) ? dataCache.url(for: key) : nil)
            } else {
                self = metadata.hasValidator ? .stale(metadata) : .missing
            }
        }
    }
}
