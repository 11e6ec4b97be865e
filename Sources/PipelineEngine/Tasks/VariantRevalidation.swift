import Foundation

/// HTTP cache mode: whether an encoded variant on disk (a thumbnail, a
/// processed image) is still current.
///
/// A variant's metadata is a copy of its source's HTTP metadata, taken when
/// the variant was made: its freshness is the source's, and its validator
/// names the source's version. A stale variant is checked through the data
/// level — the source is revalidated (or found fresh) once for every
/// variant and request that needs it — and stays valid while the source's
/// validator is the same: a 304 keeps every variant without re-decoding.
extension ImagePipeline {
    /// The outcome of `revalidateVariant`.
    enum VariantCheck: Sendable {
        /// The variant is current: its metadata was refreshed. `source`
        /// says how the source was confirmed (`disk` when it was fresh).
        case current(source: ImageResponse.Source, downloadAttempts: Int)
        /// The source changed: the variant must be made again, from the
        /// source data the check loaded (passed on so it is not downloaded twice).
        case changed(LoadedData)
        /// The source could not be checked.
        case failed(ImagePipelineError)
    }

    /// Checks the stale variant of `request`, described by `metadata`.
    ///
    /// - Parameters:
    ///   - onProgress: download progress and retries of the source, if it is fetched.
    ///   - completion: called once with the outcome.
    func revalidateVariant(
        of request: ImageRequest, metadata: HTTPCacheMetadata,
        origins: @escaping PipelineTask<LoadedData>.Origins, priority: ImagePriority,
        onProgress: @escaping PipelineTask<LoadedData>.Handler,
        completion: @escaping @Sendable (VariantCheck) -> Void
    ) -> PipelineTask<LoadedData>.Subscription {
        let variantKey = request.processedDataCacheKey
        return subscribeData(request, needsBytes: false, origins: origins, priority: priority) { [configuration] event in
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
                if request.writesDiskCache { configuration.dataCache?.storeMetadata(current.encoded(), for: variantKey) }
                completion(.current(source: loaded.source == .disk ? .disk : .revalidated,
                                    downloadAttempts: loaded.downloadAttempts))
            }
        }
    }
}
