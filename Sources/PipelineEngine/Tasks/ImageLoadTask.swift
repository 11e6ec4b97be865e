import Foundation

/// The image levels of the task graph. The task for `[p1…pn]` looks in the
/// memory cache, then for an encoded copy on disk, under its own key; on a
/// miss it waits on the task for `[p1…pn-1]` and applies `pn` on the
/// processing queue — or, for `[]`, waits on the data and decodes it
/// (straight to a thumbnail when asked) on the decoding queue.
///
/// `request` is the level's own; `origins` are what callers asked for,
/// which the data level needs to apply the `DataCachePolicy`.
extension ImagePipeline {
    func subscribeImage(
        _ request: ImageRequest, origins: @escaping PipelineTask<LoadedImage>.Origins, priority: ImagePriority,
        _ handler: @escaping PipelineTask<LoadedImage>.Handler
    ) -> PipelineTask<LoadedImage>.Subscription {
        imageTasks.subscribe(ImageLoadKey(request), priority: priority, origins: origins, starter: { [self] task in
            startImageTask(task, request: request)
        }, handler)
    }

    private func startImageTask(_ task: PipelineTask<LoadedImage>, request: ImageRequest) {
        if request.readsMemoryCache, let image = configuration.imageCache?.image(for: request.imageCacheKey) {
            task.send(.success(LoadedImage(image: image, source: .memory, sourceFormat: nil, encoded: nil, cacheURL: nil)))
            return
        }
        let policy = configuration.dataCachePolicy
        if let dataCache = configuration.dataCache, request.readsDiskCache,
           policy.mayHaveEncodedImage(for: request), dataCache.containsData(for: request.processedDataCacheKey) {
            decodeEncodedCopy(task, request: request, from: dataCache)
            return
        }
        loadFromUpstream(task, request: request)
    }

    /// Decodes the encoded copy on disk (already processed: no thumbnail, no
    /// processors). A copy that vanished or does not decode is ignored.
    private func decodeEncodedCopy(_ task: PipelineTask<LoadedImage>, request: ImageRequest, from dataCache: DataCache) {
        let key = request.processedDataCacheKey
        let limits = configuration.imageLimits
        let item = queues.decoding.enqueueBlocking(priority: task.priority) { [self] in
            guard !task.isEnded else { return }
            counters.countDecode()
            if let data = dataCache.cachedData(for: key),
               let image = try? ImageCodec.decode(data, thumbnail: nil, limits: limits) {
                task.send(.success(LoadedImage(image: image, source: .disk, sourceFormat: ImageFormat(sniffing: data),
                                               encoded: data, cacheURL: dataCache.url(for: key))))
            } else {
                loadFromUpstream(task, request: request)
            }
        }
        task.setOperation(item)
    }

    private func loadFromUpstream(_ task: PipelineTask<LoadedImage>, request: ImageRequest) {
        if request.processors.isEmpty {
            decodeOriginal(task, request: request)
        } else {
            processUpstream(task, request: request)
        }
    }

    private func decodeOriginal(_ task: PipelineTask<LoadedImage>, request: ImageRequest) {
        let limits = configuration.imageLimits
        let dependency = subscribeData(request, origins: { task.requests }, priority: task.priority) { [self] event in
            task.relay(event) { loaded in
                let item = queues.decoding.enqueueBlocking(priority: task.priority) { [self] in
                    guard !task.isEnded else { return }
                    counters.countDecode()
                    let result = Result { () throws(ImageProcessingError) in
                        try ImageCodec.decode(loaded.data, thumbnail: request.thumbnail, limits: limits)
                    }
                    task.send(result
                        .map { LoadedImage(image: $0, source: loaded.source, sourceFormat: ImageFormat(sniffing: loaded.data),
                                           encoded: nil, cacheURL: nil) }
                        .mapError { .imageProcessingFailed($0) })
                }
                task.setOperation(item)
            }
        }
        task.setDependency(dependency.erased)
    }

    private func processUpstream(_ task: PipelineTask<LoadedImage>, request: ImageRequest) {
        let processor = request.processors[request.processors.count - 1]
        let dependency = subscribeImage(request.droppingLastProcessor, origins: { task.requests },
                                        priority: task.priority) { [self] event in
            task.relay(event) { input in
                let item = queues.processing.enqueueBlocking(priority: task.priority) { [self] in
                    guard !task.isEnded else { return }
                    counters.countProcessing(processor)
                    let result = Result { () throws(ImageProcessingError) in try ImageCodec.process(input.image, with: processor) }
                    task.send(result
                        .map { LoadedImage(image: $0, source: input.source, sourceFormat: input.sourceFormat, encoded: nil, cacheURL: nil) }
                        .mapError { .imageProcessingFailed($0) })
                }
                task.setOperation(item)
            }
        }
        task.setDependency(dependency.erased)
    }
}
