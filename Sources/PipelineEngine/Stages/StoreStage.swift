import Foundation

/// What the task graph writes to the disk cache, and when: the original
/// data a download brought, and the encoded variants the encoding level made.
///
/// Both writes end their task only once the file is in place, so a
/// completed task means a file on disk.
struct StoreStage {
    let pipeline: ImagePipeline

    private var configuration: ImagePipeline.Configuration { pipeline.configuration }

    /// Stores a downloaded body as the mode and the policy say, for the
    /// `requests` waiting on it.
    ///
    /// - Aggressive mode: the data, when the policy stores originals for
    ///   any of the requests.
    /// - HTTP mode: nothing for a response a shared cache must not store
    ///   (and an older entry is removed); otherwise the metadata always —
    ///   variants are revalidated through it — and the data when the policy says so.
    ///
    /// - Parameter wasResumed: whether the body completes a partial download
    ///   (whose kept bytes are then removed, whatever is stored).
    func storeOriginal(
        _ body: Data, status: Int, headers: [String: String], requestTime: Date, responseTime: Date,
        request: ImageRequest, requests: [ImageRequest], attempts: Int, wasResumed: Bool
    ) async -> Result<LoadedData, ImagePipelineError> {
        let key = request.dataCacheKey
        let network = LoadedData(body: body, cacheURL: nil, source: .network, downloadAttempts: attempts)
        guard let dataCache = configuration.dataCache else { return .success(network) }
        let storesData = requests.contains(where: configuration.dataCachePolicy.storesOriginalData(for:))
        var metadata: HTTPCacheMetadata?
        if configuration.dataCacheMode == .http {
            metadata = HTTPCacheMetadata(storing: status, headers: headers, url: key,
                                         requestHeaders: configuration.varyRequestHeaders,
                                         requestTime: requestTime, responseTime: responseTime)
            if metadata == nil {
                dataCache.removeData(for: key)
                return .success(network)
            }
        }
        var loaded = network
        loaded.metadata = metadata
        do {
            if storesData {
                let storeStart = ContinuousClock.now
                let url = try await dataCache.write(body, for: key, metadata: metadata?.encoded())
                PipelineMetrics.record(.store, since: storeStart)
                PipelineMetrics.stored(bytes: body.count)
                loaded = LoadedData(body: body, cacheURL: url, source: .network, metadata: metadata, downloadAttempts: attempts)
            } else if let metadata, requests.contains(where: \.writesDiskCache) {
                dataCache.storeMetadata(metadata.encoded(), for: key)
                dataCache.removePartialData(for: key)
            } else if wasResumed {
                dataCache.removePartialData(for: key)
            }
            return .success(loaded)
        } catch {
            configuration.logger.warning("could not write to the disk cache", metadata: [
                "url": .string(request.url.absoluteString), "code": "cache_write_failed",
                "error": .string(String(describing: error)),
            ])
            return .failure(.dataCacheWriteFailed(String(describing: error)))
        }
    }

    /// Writes an encoded variant and ends `task` once the file is in place.
    /// In HTTP cache mode the variant stores its source's metadata, through
    /// which it is revalidated (`VariantLookup`); a source without (a
    /// `no-store` response, an image from memory) leaves no variant on disk.
    func storeVariant(_ data: Data, of loaded: LoadedImage, request: ImageRequest, for task: PipelineTask<LoadedImage>) {
        let result = { (cacheURL: URL?) in
            LoadedImage(image: loaded.image, source: loaded.source, sourceFormat: loaded.sourceFormat,
                        encoded: data, cacheURL: cacheURL, sourceMetadata: loaded.sourceMetadata,
                        downloadAttempts: loaded.downloadAttempts)
        }
        let isHTTPMode = configuration.dataCacheMode == .http
        guard let dataCache = configuration.dataCache, !isHTTPMode || loaded.sourceMetadata != nil else {
            task.send(.success(result(nil)))
            return
        }
        let metadata = isHTTPMode ? loaded.sourceMetadata?.encoded() : nil
        let write = Task {
            do {
                let storeStart = ContinuousClock.now
                let cacheURL = try await dataCache.write(data, for: request.processedDataCacheKey, metadata: metadata)
                PipelineMetrics.record(.store, since: storeStart)
                PipelineMetrics.stored(bytes: data.count)
                task.send(.success(result(cacheURL)))
            } catch {
                task.send(.failure(.dataCacheWriteFailed(String(describing: error))))
            }
        }
        task.onCancel { write.cancel() }
    }
}
