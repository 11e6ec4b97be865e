import Foundation

/// The image levels of the task graph: one node per request and processor
/// prefix. The node for `[p1…pn]` looks in the memory cache, then for an
/// encoded variant on disk (`VariantLookup`), under its own key; on a miss
/// it waits on the node for `[p1…pn-1]` and applies `pn` (`ProcessStage`) —
/// or, for `[]`, on the data and decodes it, straight to a thumbnail when
/// asked (`DecodeStage`).
///
/// `request` is the level's own; `origins` are what callers asked for,
/// which the data level needs to apply the `DataCachePolicy`.
struct ImageStage {
    let pipeline: ImagePipeline

    private var configuration: ImagePipeline.Configuration { pipeline.configuration }

    /// Joins (or starts) the node of `request`.
    /// - Parameter source: the original data, when the caller has it already
    ///   (it just found the source changed): the chain decodes it rather than
    ///   look on disk or download. A node already running keeps its own.
    func subscribe(
        _ request: ImageRequest, origins: @escaping PipelineTask<LoadedImage>.Origins, priority: ImagePriority,
        source: LoadedData? = nil, _ handler: @escaping PipelineTask<LoadedImage>.Handler
    ) -> PipelineTask<LoadedImage>.Subscription {
        pipeline.imageTasks.subscribe(ImageLoadKey(request), priority: priority, origins: origins, starter: { [self] task in
            if let source {
                loadFromUpstream(task, request: request, source: source)
            } else {
                start(task, request: request)
            }
        }, handler)
    }

    private func start(_ task: PipelineTask<LoadedImage>, request: ImageRequest) {
        if let loaded = imageInMemory(for: request) {
            task.send(.success(loaded))
            return
        }
        let check = VariantLookup(pipeline: pipeline).look(
            for: request, origins: { task.requests }, priority: task.priority,
            onProgress: { event in task.relay(event) { _ in } }
        ) { [self] outcome in
            switch outcome {
            case .onDisk(let source, let metadata, _):
                DecodeStage(pipeline: pipeline).decodeVariant(task, request: request, source: source, metadata: metadata)
            case .absent: loadFromUpstream(task, request: request)
            case .changed(let source): loadFromUpstream(task, request: request, source: source)
            case .failed(let error): task.send(.failure(error))
            }
        }
        // A check can end inside `look` (its source entry was fresh) and
        // start the upstream work, which is then the dependency to keep.
        if let check { task.setDependencyUnlessSet(check.erased) }
    }

    /// The level's image from the memory cache, with what an encoded
    /// variant made from it needs: its source's format and, in HTTP cache
    /// mode, its source's metadata, read from disk. Without that metadata
    /// (evicted, or a response no cache may store) the copy in memory is not
    /// used: the level loads as on a miss, which revalidates or fetches the
    /// source, so a variant is never stored without its validator.
    private func imageInMemory(for request: ImageRequest) -> LoadedImage? {
        guard request.readsMemoryCache, let image = configuration.imageCache?.image(for: request.imageCacheKey) else {
            return nil
        }
        var loaded = LoadedImage(image: image, source: .memory, sourceFormat: image.sourceFormat, encoded: nil, cacheURL: nil)
        guard configuration.dataCacheMode == .http, configuration.dataCache != nil else { return loaded }
        switch DiskEntry(for: request.dataCacheKey, in: configuration) {
        case .fresh(let metadata?, _), .stale(let metadata):
            loaded.sourceMetadata = metadata
            return loaded
        case .fresh(nil, _), .missing:
            return nil
        }
    }

    /// Makes the level's image from the level below: decodes the original
    /// for `[]`, applies the last processor otherwise.
    func loadFromUpstream(_ task: PipelineTask<LoadedImage>, request: ImageRequest, source: LoadedData? = nil) {
        if request.processors.isEmpty {
            DecodeStage(pipeline: pipeline).decodeOriginal(task, request: request, source: source)
        } else {
            ProcessStage(pipeline: pipeline).process(task, request: request, source: source)
        }
    }
}
