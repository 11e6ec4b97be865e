import Foundation

/// What the disk cache holds for a key, as the task graph sees it.
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
}

extension ImagePipeline {
    /// The state of `key`'s entry under the pipeline's `dataCacheMode`.
    /// Refreshes the entry's access date when it has data.
    func diskEntry(for key: String, now: Date = Date()) -> DiskEntry {
        guard let dataCache = configuration.dataCache else { return .missing }
        switch configuration.dataCacheMode {
        case .aggressive:
            return dataCache.containsData(for: key) ? .fresh(metadata: nil, cacheURL: dataCache.url(for: key)) : .missing
        case .http:
            guard let metadata = dataCache.metadata(for: key).flatMap(HTTPCacheMetadata.decode),
                  metadata.matchesVary(requestHeaders: varyRequestHeaders) else { return .missing }
            if metadata.isFresh(at: now) {
                let cacheURL = dataCache.containsData(for: key) ? dataCache.url(for: key) : nil
                return .fresh(metadata: metadata, cacheURL: cacheURL)
            }
            return metadata.hasValidator ? .stale(metadata) : .missing
        }
    }

    /// The loader's request headers with lowercased names, which `Vary` refers to.
    var varyRequestHeaders: [String: String] {
        Dictionary(configuration.dataLoader.requestHeaders.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
    }
}
