import Foundation

/// Decoding, on the decoding queue with the configuration's `imageDecoder`:
/// the original data of a `[]` level (to a thumbnail when asked), or an
/// encoded variant found on disk.
struct DecodeStage {
    let pipeline: ImagePipeline

    private var configuration: ImagePipeline.Configuration { pipeline.configuration }

    /// Decodes the original data: `source` when given, else the data level's.
    /// When the cache held only its metadata (or the file vanished),
    /// downloads the data again, skipping the cache.
    func decodeOriginal(_ task: PipelineTask<LoadedImage>, request: ImageRequest, source: LoadedData? = nil) {
        if let source { return decode(source, for: task, request: request) }
        let dependency = DataFetchStage(pipeline: pipeline).subscribe(
            request, origins: { task.requests }, priority: task.priority
        ) { [self] event in
            task.relay(event) { loaded in decode(loaded, for: task, request: request) }
        }
        task.setDependency(dependency.erased)
    }

    /// Decodes `loaded` (to a thumbnail when asked) on the decoding queue.
    private func decode(_ loaded: LoadedData, for task: PipelineTask<LoadedImage>, request: ImageRequest) {
        let configuration = configuration
        let item = pipeline.queues.decoding.enqueueBlocking(priority: task.priority) { [self] in
            guard !task.isEnded else { return }
            let readStart = ContinuousClock.now
            let bytes = loaded.bytes(in: configuration.dataCache)
            if loaded.body == nil { PipelineMetrics.record(.diskRead, since: readStart) }
            guard let data = bytes else {
                var uncached = request
                uncached.options.insert(.disableDiskCacheReads)
                return decodeOriginal(task, request: uncached)
            }
            pipeline.counters.countDecode()
            let result = Result { () throws(ImageProcessingError) in
                try PipelineMetrics.measure(.decode) { () throws(ImageProcessingError) in
                    try configuration.imageDecoder.decode(
                        data, thumbnail: request.thumbnail, limits: configuration.imageLimits,
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

    /// Decodes the encoded variant on disk (already processed: no thumbnail,
    /// no processors). A variant that vanished or does not decode is ignored:
    /// the level is made from upstream instead.
    func decodeVariant(
        _ task: PipelineTask<LoadedImage>, request: ImageRequest, source: ImageResponse.Source, metadata: HTTPCacheMetadata?
    ) {
        let configuration = configuration
        guard let dataCache = configuration.dataCache else {
            return ImageStage(pipeline: pipeline).loadFromUpstream(task, request: request)
        }
        let key = request.processedDataCacheKey
        let item = pipeline.queues.decoding.enqueueBlocking(priority: task.priority) { [self] in
            guard !task.isEnded else { return }
            pipeline.counters.countDecode()
            if let data = dataCache.cachedData(for: key),
               let image = try? configuration.imageDecoder.decode(
                   data, thumbnail: nil, limits: configuration.imageLimits, budget: configuration.memoryBudget,
                   shouldStop: { task.isEnded }) {
                task.send(.success(LoadedImage(image: image, source: source, sourceFormat: ImageFormat(sniffing: data),
                                               encoded: data, cacheURL: dataCache.url(for: key), sourceMetadata: metadata)))
            } else {
                ImageStage(pipeline: pipeline).loadFromUpstream(task, request: request)
            }
        }
        task.setOperation(item)
    }
}
