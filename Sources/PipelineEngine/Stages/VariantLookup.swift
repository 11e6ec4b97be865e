import Foundation

/// Whether an encoded variant on disk (a thumbnail, a processed image)
/// serves a request: the one place that decides it, for loads and prefetches alike.
///
/// A variant is looked for only when the request reads the disk cache and
/// the `DataCachePolicy` may have stored one for it. In aggressive mode a
/// stored variant is used as it is. In HTTP cache mode a variant's metadata
/// is a copy of its source's, taken when the variant was made: its
/// freshness is the source's, and its validator names the source's version.
/// A stale variant is checked through the data level — the source is
/// revalidated (or found fresh) once for every variant and request that
/// needs it — and stays valid while the source's validator is the same: a
/// 304 keeps every variant without re-decoding.
struct VariantLookup {
    let pipeline: ImagePipeline

    /// What the lookup found.
    enum Outcome: Sendable {
        /// The variant on disk serves the request. `source` says how it was
        /// confirmed (`disk` when fresh, `revalidated` after a 304); `metadata`
        /// is the entry's metadata as it was found.
        case onDisk(source: ImageResponse.Source, metadata: HTTPCacheMetadata?, downloadAttempts: Int)
        /// No usable variant: make it.
        case absent
        /// The source changed: make the variant again, from the source data
        /// the check loaded (passed on so it is not downloaded twice).
        case changed(LoadedData)
        /// The source could not be checked.
        case failed(ImagePipelineError)
    }

    /// Looks for `request`'s variant. `completion` is called once — at once
    /// when no check is needed, else when the source's check ends.
    ///
    /// - Parameters:
    ///   - origins: the requests callers made (for the data level's policy).
    ///   - onProgress: download progress and retries of the source, if it is fetched.
    /// - Returns: the subscription of the source's check, when one runs (the
    ///   caller attaches it so that cancelling and priorities reach it).
    func look(
        for request: ImageRequest, origins: @escaping PipelineTask<LoadedData>.Origins, priority: ImagePriority,
        onProgress: @escaping PipelineTask<LoadedData>.Handler, completion: @escaping @Sendable (Outcome) -> Void
    ) -> PipelineTask<LoadedData>.Subscription? {
        let configuration = pipeline.configuration
        guard let dataCache = configuration.dataCache, request.readsDiskCache,
              configuration.dataCachePolicy.mayHaveEncodedImage(for: request) else {
            completion(.absent)
            return nil
        }
        let key = request.processedDataCacheKey
        switch DiskEntry(for: key, in: configuration) {
        case .fresh(let metadata, _?):
            completion(.onDisk(source: .disk, metadata: metadata, downloadAttempts: 0))
            return nil
        case .stale(let metadata) where dataCache.containsData(for: key):
            return revalidate(request, metadata: metadata, origins: origins, priority: priority,
                              onProgress: onProgress, completion: completion)
        default:
            completion(.absent)
            return nil
        }
    }

    /// Checks the stale variant of `request`, described by `metadata`, through its source.
    private func revalidate(
        _ request: ImageRequest, metadata: HTTPCacheMetadata, origins: @escaping PipelineTask<LoadedData>.Origins,
        priority: ImagePriority, onProgress: @escaping PipelineTask<LoadedData>.Handler,
        completion: @escaping @Sendable (Outcome) -> Void
    ) -> PipelineTask<LoadedData>.Subscription {
        let variantKey = request.processedDataCacheKey
        let dataCache = pipeline.configuration.dataCache
        return DataFetchStage(pipeline: pipeline).subscribe(request, needsBytes: false, origins: origins, priority: priority) { event in
            switch event {
            case .progress, .retrying:
                onProgress(event)
            case .error(let error):
                completion(.failed(error))
            case .value(let loaded):
                guard let current = loaded.metadata, let validator = current.variantValidator,
                      validator == metadata.variantValidator else {
                    completion(.changed(loaded))
                    return
                }
                if request.writesDiskCache { dataCache?.storeMetadata(current.encoded(), for: variantKey) }
                completion(.onDisk(source: loaded.source == .disk ? .disk : .revalidated, metadata: metadata,
                                   downloadAttempts: loaded.downloadAttempts))
            }
        }
    }
}
