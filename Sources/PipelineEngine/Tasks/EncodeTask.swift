import Foundation

/// The encoding level of the task graph: encodes the requested image and
/// writes it to the disk cache under `processedDataCacheKey`. Only used when
/// the `dataCachePolicy` stores encoded images for the request; one encode
/// however many requests need it.
extension ImagePipeline {
    func subscribeEncoded(
        _ request: ImageRequest, priority: ImagePriority,
        _ handler: @escaping PipelineTask<LoadedImage>.Handler
    ) -> PipelineTask<LoadedImage>.Subscription {
        encodeTasks.subscribe(ImageLoadKey(request), priority: priority, origins: { [request] }, starter: { [self] task in
            startEncodeTask(task, request: request)
        }, handler)
    }

    private func startEncodeTask(_ task: PipelineTask<LoadedImage>, request: ImageRequest) {
        let dependency = subscribeImage(request, origins: { task.requests }, priority: task.priority) { [self] event in
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
                    task.send(encodeAndStore(loaded, request: request))
                }
                task.setOperation(item)
            }
        }
        task.setDependency(dependency.erased)
    }

    /// Runs on an encoding thread.
    private func encodeAndStore(_ loaded: LoadedImage, request: ImageRequest) -> Result<LoadedImage, ImagePipelineError> {
        let encoding = request.encoding ?? ImageEncoding(format: (loaded.sourceFormat ?? .jpeg).defaultOutputFormat)
        let data: Data
        counters.countEncode()
        do {
            data = try ImageCodec.encode(loaded.image, as: encoding)
        } catch {
            return .failure(.imageProcessingFailed(error))
        }
        var cacheURL: URL?
        if let dataCache = configuration.dataCache {
            let key = request.processedDataCacheKey
            dataCache.storeData(data, for: key)
            cacheURL = dataCache.url(for: key)
        }
        return .success(LoadedImage(image: loaded.image, source: loaded.source, sourceFormat: loaded.sourceFormat,
                                    encoded: data, cacheURL: cacheURL))
    }
}
