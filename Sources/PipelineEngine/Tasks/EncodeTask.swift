import Foundation

/// The encoding level of the task graph: encodes the requested image and
/// writes it to the disk cache under `processedDataCacheKey`. Only used when
/// the `dataCachePolicy` stores encoded images for the request; one encode
/// however many requests need it.
extension ImagePipeline {
    /// - Parameter source: the original data, when the caller has it already (see `subscribeImage`).
    func subscribeEncoded(
        _ request: ImageRequest, priority: ImagePriority, source: LoadedData? = nil,
        _ handler: @escaping PipelineTask<LoadedImage>.Handler
    ) -> PipelineTask<LoadedImage>.Subscription {
        encodeTasks.subscribe(ImageLoadKey(request), priority: priority, origins: { [request] }, starter: { [self] task in
            startEncodeTask(task, request: request, source: source)
        }, handler)
    }

    private func startEncodeTask(_ task: PipelineTask<LoadedImage>, request: ImageRequest, source: LoadedData?) {
        let dependency = subscribeImage(request, origins: { task.requests }, priority: task.priority,
                                        source: source) { [self] event in
            task.relay(event) { loaded in
                // Read from disk already encoded: nothing to encode or store.
                // (An image from memory is encoded: a lower level in memory,
                // [p1] serving [p1, p2], says `memory` too.)
                guard loaded.encoded == nil else {
                    task.send(.success(loaded))
                    return
                }
                let item = queues.encoding.enqueueBlocking(priority: task.priority) { [self] in
                    guard !task.isEnded else { return }
                    switch encode(loaded, request: request) {
                    case .failure(let error): task.send(.failure(error))
                    case .success(let data): store(data, of: loaded, request: request, for: task)
                    }
                }
                task.setOperation(item)
            }
        }
        task.setDependency(dependency.erased)
    }

    /// Runs on an encoding thread.
    private func encode(_ loaded: LoadedImage, request: ImageRequest) -> Result<Data, ImagePipelineError> {
        let encoding = request.encoding ?? ImageEncoding(format: (loaded.sourceFormat ?? .jpeg).defaultOutputFormat)
        counters.countEncode()
        return Result { () throws(ImageProcessingError) in
            try PipelineMetrics.measure(.encode) { () throws(ImageProcessingError) in try ImageCodec.encode(loaded.image, as: encoding) }
        }
            .mapError { .imageProcessingFailed($0) }
    }

    /// Writes the encoded image and ends the task once the file is in place
    /// (as the data level does), so a completed task means a file on disk.
    /// In HTTP cache mode the variant stores its source's metadata, through
    /// which it is revalidated; a source without (a `no-store` response, an
    /// image from memory) leaves no variant on disk.
    private func store(_ data: Data, of loaded: LoadedImage, request: ImageRequest, for task: PipelineTask<LoadedImage>) {
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
