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
    /// - Parameter source: the original data, when the caller has it already
    ///   (it just found the source changed): the chain decodes it rather than
    ///   look on disk or download. A task already running for the level keeps its own.
    func subscribeImage(
        _ request: ImageRequest, origins: @escaping PipelineTask<LoadedImage>.Origins, priority: ImagePriority,
        source: LoadedData? = nil, _ handler: @escaping PipelineTask<LoadedImage>.Handler
    ) -> PipelineTask<LoadedImage>.Subscription {
        imageTasks.subscribe(ImageLoadKey(request), priority: priority, origins: origins, starter: { [self] task in
            if let source {
                loadFromUpstream(task, request: request, source: source)
            } else {
                startImageTask(task, request: request)
            }
        }, handler)
    }

    private func startImageTask(_ task: PipelineTask<LoadedImage>, request: ImageRequest) {
        if request.readsMemoryCache, let image = configuration.imageCache?.image(for: request.imageCacheKey) {
            task.send(.success(LoadedImage(image: image, source: .memory, sourceFormat: nil, encoded: nil, cacheURL: nil)))
            return
        }
        guard configuration.dataCache != nil, request.readsDiskCache,
              configuration.dataCachePolicy.mayHaveEncodedImage(for: request) else {
            loadFromUpstream(task, request: request)
            return
        }
        switch diskEntry(for: request.processedDataCacheKey) {
        case .fresh(let metadata, _?):
            decodeEncodedCopy(task, request: request, source: .disk, metadata: metadata)
        case .stale(let metadata) where configuration.dataCache?.containsData(for: request.processedDataCacheKey) == true:
            let check = revalidateVariant(
                of: request, metadata: metadata, origins: { task.requests }, priority: task.priority,
                onProgress: { event in task.relay(event) { _ in } }
            ) { [self] outcome in
                switch outcome {
                case .current(let source, _): decodeEncodedCopy(task, request: request, source: source, metadata: metadata)
                case .changed(let source): loadFromUpstream(task, request: request, source: source)
                case .failed(let error): task.send(.failure(error))
                }
            }
            task.setDependency(check.erased)
        default:
            loadFromUpstream(task, request: request)
        }
    }

    /// Decodes the encoded copy on disk (already processed: no thumbnail, no
    /// processors). A copy that vanished or does not decode is ignored.
    private func decodeEncodedCopy(
        _ task: PipelineTask<LoadedImage>, request: ImageRequest, source: ImageResponse.Source, metadata: HTTPCacheMetadata?
    ) {
        guard let dataCache = configuration.dataCache else { return loadFromUpstream(task, request: request) }
        let key = request.processedDataCacheKey
        let limits = configuration.imageLimits
        let item = queues.decoding.enqueueBlocking(priority: task.priority) { [self] in
            guard !task.isEnded else { return }
            counters.countDecode()
            if let data = dataCache.cachedData(for: key),
               let image = try? ImageCodec.decode(data, thumbnail: nil, limits: limits, budget: configuration.memoryBudget,
                                                  shouldStop: { task.isEnded }) {
                task.send(.success(LoadedImage(image: image, source: source, sourceFormat: ImageFormat(sniffing: data),
                                               encoded: data, cacheURL: dataCache.url(for: key), sourceMetadata: metadata)))
            } else {
                loadFromUpstream(task, request: request)
            }
        }
        task.setOperation(item)
    }

    private func loadFromUpstream(_ task: PipelineTask<LoadedImage>, request: ImageRequest, source: LoadedData? = nil) {
        if request.processors.isEmpty {
            decodeOriginal(task, request: request, source: source)
        } else {
            processUpstream(task, request: request, source: source)
        }
    }

    /// Decodes the original data: `source` when given, else the data level's.
    /// When the cache held only its metadata (or the file vanished), downloads
    /// the data again, skipping the cache.
    private func decodeOriginal(_ task: PipelineTask<LoadedImage>, request: ImageRequest, source: LoadedData? = nil) {
        if let source { return decode(source, for: task, request: request) }
        let dependency = subscribeData(request, origins: { task.requests }, priority: task.priority) { [self] event in
            task.relay(event) { loaded in decode(loaded, for: task, request: request) }
        }
        task.setDependency(dependency.erased)
    }

    /// Decodes `loaded` (to a thumbnail when asked) on the decoding queue.
    private func decode(_ loaded: LoadedData, for task: PipelineTask<LoadedImage>, request: ImageRequest) {
        let limits = configuration.imageLimits
        let item = queues.decoding.enqueueBlocking(priority: task.priority) { [self] in
            guard !task.isEnded else { return }
            let readStart = ContinuousClock.now
            let bytes = loaded.bytes(in: configuration.dataCache)
            if loaded.body == nil { PipelineMetrics.record(.diskRead, since: readStart) }
            guard let data = bytes else {
                var uncached = request
                uncached.options.insert(.disableDiskCacheReads)
                return decodeOriginal(task, request: uncached)
            }
            counters.countDecode()
            let result = Result { () throws(ImageProcessingError) in
                try PipelineMetrics.measure(.decode) { () throws(ImageProcessingError) in
                    try ImageCodec.decode(data, thumbnail: request.thumbnail, limits: limits,
                                          budget: configuration.memoryBudget, shouldStop: { task.isEnded })
                }
            }
            task.send(result
                .map { LoadedImage(image: $0, source: loaded.source, sourceFormat: ImageFormat(sniffing: data),
                                   encoded: nil, cacheURL: nil, sourceMetadata: loaded.metadata,
                                   downloadAttempts: loaded.downloadAttempts) }
                .mapError { .imageProcessingFailed($0) })
        }
        task.setOperation(item)
    }

    private func processUpstream(_ task: PipelineTask<LoadedImage>, request: ImageRequest, source: LoadedData?) {
        guard let processor = request.processors.last else { return decodeOriginal(task, request: request, source: source) }
        let limits = configuration.processingLimits
        let dependency = subscribeImage(request.droppingLastProcessor, origins: { task.requests },
                                        priority: task.priority, source: source) { [self] event in
            task.relay(event) { input in
                let item = queues.processing.enqueueBlocking(priority: task.priority) { [self] in
                    guard !task.isEnded else { return }
                    counters.countProcessing(processor)
                    let result = Result { () throws(ImageProcessingError) in
                        try PipelineMetrics.measure(.process) { () throws(ImageProcessingError) in
                            try ImageCodec.process(input.image, with: processor, limits: limits, budget: configuration.memoryBudget)
                        }
                    }
                    task.send(result
                        .map { LoadedImage(image: $0, source: input.source, sourceFormat: input.sourceFormat, encoded: nil,
                                           cacheURL: nil, sourceMetadata: input.sourceMetadata,
                                           downloadAttempts: input.downloadAttempts) }
                        .mapError { .imageProcessingFailed($0) })
                }
                task.setOperation(item)
            }
        }
        task.setDependency(dependency.erased)
    }
}
