import Foundation

/// Runs a caller's `ImageTask` on the task graph: answers from the memory
/// cache or a cached file when it can, otherwise subscribes the task to the
/// graph's node for its request and turns the node's value into the
/// task's `ImageResponse`.
///
/// The stages behind it, each one type: `DataFetchStage` (original data),
/// `ImageStage` (memory, variant on disk, else upstream), `DecodeStage`,
/// `ProcessStage`, `EncodeStage` and `StoreStage`; `VariantLookup` decides
/// whether an encoded variant on disk serves a request. docs/pipeline.md
/// describes how the graph is coordinated.
struct ImageTaskRunner {
    let pipeline: ImagePipeline

    private var configuration: ImagePipeline.Configuration { pipeline.configuration }

    /// Starts `work` for `task`.
    func run(_ task: ImageTask, _ work: ImagePipeline.Work) {
        switch work {
        case .loadData: subscribeToData(task, wantsBytes: true)
        case .prefetchData: prefetchData(task)
        case .loadImage: loadImage(task)
        case .prefetchImage: prefetchImage(task)
        }
    }

    private func prefetchData(_ task: ImageTask) {
        let request = task.request
        let key = request.dataCacheKey
        guard let dataCache = configuration.dataCache, request.readsDiskCache else {
            return subscribeToData(task, wantsBytes: false)
        }
        let entry = DiskEntry(for: key, in: configuration)
        if case .fresh(_, let cacheURL?) = entry {
            let response = ImageResponse(request: request, source: .disk, byteCount: dataCache.sizeOfData(for: key) ?? 0,
                                         cacheURL: cacheURL, data: nil)
            task.finish(with: .success(response))
            return
        }
        subscribeToData(task, wantsBytes: false, entry: entry)
    }

    private func loadImage(_ task: ImageTask) {
        if let image = cachedImage(for: task.request) {
            task.finish(with: .success(ImageResponse(request: task.request, source: .memory, byteCount: image.cost,
                                                     cacheURL: nil, data: nil, image: image)))
            return
        }
        subscribeToImage(task)
    }

    /// Done if the image is in memory and no encoded variant is to be kept
    /// on disk, or if its variant on disk serves the request (which is then
    /// not read back or decoded); otherwise loaded. A variant missing from
    /// disk is encoded from the image in memory (`EncodeStage`), so a
    /// completed prefetch always leaves the file its policy stores.
    private func prefetchImage(_ task: ImageTask) {
        let request = task.request
        if let image = imageCompletingPrefetch(of: request) {
            task.finish(with: .success(ImageResponse(request: request, source: .memory, byteCount: image.cost,
                                                     cacheURL: nil, data: nil, image: nil)))
            return
        }
        let dataCache = configuration.dataCache
        let key = request.processedDataCacheKey
        let check = VariantLookup(pipeline: pipeline).look(
            for: request, origins: { [request] }, priority: task.priority, onProgress: { event in task.report(event) }
        ) { [self] outcome in
            switch outcome {
            case .onDisk(let source, _, let attempts):
                task.finish(with: .success(ImageResponse(
                    request: request, source: source, byteCount: dataCache?.sizeOfData(for: key) ?? 0,
                    cacheURL: dataCache?.url(for: key), data: nil, downloadAttempts: attempts)))
            case .absent: subscribeToImage(task)
            case .changed(let source): subscribeToImage(task, source: source)
            case .failed(let error): task.finish(with: .failure(error))
            }
        }
        if let check { task.attach(check.erased) }
    }

    /// The image that completes a processed prefetch of `request` from the
    /// memory cache alone: it is there, and the request keeps no encoded
    /// variant on disk.
    func imageCompletingPrefetch(of request: ImageRequest) -> DecodedImage? {
        if configuration.dataCache != nil, configuration.dataCachePolicy.storesEncodedImage(for: request) { return nil }
        return cachedImage(for: request)
    }

    private func cachedImage(for request: ImageRequest) -> DecodedImage? {
        guard request.readsMemoryCache, let imageCache = configuration.imageCache else { return nil }
        return imageCache.image(for: request.imageCacheKey)
    }

    private func subscribeToData(_ task: ImageTask, wantsBytes: Bool, entry: DiskEntry? = nil) {
        let request = task.request
        let configuration = configuration
        let subscription = DataFetchStage(pipeline: pipeline).subscribe(
            request, needsBytes: wantsBytes, origins: { [request] }, priority: task.priority, entry: entry
        ) { [self] event in
            guard case .value(let loaded) = event else { return task.report(event) }
            guard wantsBytes else {
                task.finish(with: .success(ImageResponse(
                    request: request, source: loaded.source, byteCount: loaded.byteCount(in: configuration.dataCache),
                    cacheURL: loaded.cacheURL, data: nil, downloadAttempts: loaded.downloadAttempts)))
                return
            }
            deliverBytes(of: loaded, to: task)
        }
        task.attach(subscription.erased)
    }

    /// Finishes a `loadData` task with the bytes, reading a cached file on
    /// the data-caching queue. The queued read is the task's work from then
    /// on (as in Nuke): a priority change moves it, a cancel takes it out of
    /// the queue. When the cache held only metadata (or the file vanished),
    /// downloads the data again, skipping the cache.
    private func deliverBytes(of loaded: LoadedData, to task: ImageTask) {
        let request = task.request
        let configuration = configuration
        let finish: @Sendable (Data) -> Void = { data in
            task.finish(with: .success(ImageResponse(
                request: request, source: loaded.source, byteCount: data.count,
                cacheURL: loaded.cacheURL, data: data, downloadAttempts: loaded.downloadAttempts)))
        }
        if let body = loaded.body { return finish(body) }
        let read = pipeline.queues.dataCaching.enqueueBlocking(priority: task.priority) { [pipeline] in
            guard !task.isFinished else { return }
            if let data = loaded.bytes(in: configuration.dataCache) { return finish(data) }
            var uncached = request
            uncached.options.insert(.disableDiskCacheReads)
            let retry = DataFetchStage(pipeline: pipeline).subscribe(uncached, origins: { [request] }, priority: task.priority) { event in
                guard case .value(let loaded) = event else { return task.report(event) }
                finish(loaded.body ?? Data())
            }
            task.attach(retry.erased)
        }
        task.attach(AnySubscription(setPriority: read.setPriority, unsubscribe: read.cancel))
    }

    /// - Parameter source: the original data, when a variant check just loaded it.
    private func subscribeToImage(_ task: ImageTask, source: LoadedData? = nil) {
        let request = task.request
        let handler: PipelineTask<LoadedImage>.Handler = { [configuration] event in
            guard case .value(let loaded) = event else { return task.report(event) }
            if request.writesMemoryCache, loaded.source != .memory {
                configuration.imageCache?.store(loaded.image, for: request.imageCacheKey)
            }
            task.finish(with: .success(ImageResponse(
                request: request, source: loaded.source,
                byteCount: loaded.encoded?.count ?? loaded.image.cost,
                cacheURL: loaded.cacheURL, data: loaded.encoded, image: loaded.image,
                downloadAttempts: loaded.downloadAttempts)))
        }
        let subscription = configuration.dataCachePolicy.storesEncodedImage(for: request)
            ? EncodeStage(pipeline: pipeline).subscribe(request, priority: task.priority, source: source, handler)
            : ImageStage(pipeline: pipeline).subscribe(request, origins: { [request] }, priority: task.priority, source: source, handler)
        task.attach(subscription.erased)
    }
}
