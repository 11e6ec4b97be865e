import Foundation

/// The data level of the task graph: a URL's original data, from the disk
/// cache or the network. One task per URL however many requests need it.
///
/// A cached entry is not read here: the value says where it is, and only
/// consumers that need the bytes read them (`LoadedData.bytes(in:)`), on
/// their own threads. In HTTP cache mode a stale entry is revalidated
/// first. The download itself, with its rate limit, queue slot, retries and
/// resuming, is a `DataDownload`; what it stores, `StoreStage` decides.
struct DataFetchStage {
    let pipeline: ImagePipeline

    private var configuration: ImagePipeline.Configuration { pipeline.configuration }

    /// Joins (or starts) the data task of `request`'s URL.
    ///
    /// - Parameters:
    ///   - needsBytes: whether the caller reads the data (a decode) or only
    ///     needs it cached (a disk prefetch, a variant check).
    ///   - origins: the requests callers made, to which the `DataCachePolicy`
    ///     applies (a `[resize]` caller reaches this level through `[]`).
    ///   - entry: the cache entry's state, when the caller looked it up
    ///     already (saves reading its metadata twice).
    func subscribe(
        _ request: ImageRequest, needsBytes: Bool = true, origins: @escaping PipelineTask<LoadedData>.Origins,
        priority: ImagePriority, entry: DiskEntry? = nil, _ handler: @escaping PipelineTask<LoadedData>.Handler
    ) -> PipelineTask<LoadedData>.Subscription {
        pipeline.dataTasks.subscribe(DataLoadKey(request), priority: priority, origins: origins, starter: { [self] task in
            start(task, request: request, needsBytes: needsBytes, entry: entry)
        }, handler)
    }

    private func start(_ task: PipelineTask<LoadedData>, request: ImageRequest, needsBytes: Bool, entry: DiskEntry?) {
        let key = request.dataCacheKey
        let entry = request.readsDiskCache ? entry ?? DiskEntry(for: key, in: configuration) : .missing
        // HTTP mode may hold a source's metadata without its data: what
        // needs the data (bytes to decode, or a file the policy keeps)
        // downloads it rather than revalidate what it cannot use.
        let wantsData = needsBytes || task.requests.contains(where: configuration.dataCachePolicy.storesOriginalData(for:))
        let hasData = { configuration.dataCache?.containsData(for: key) == true }
        switch entry {
        case .fresh(_, nil) where wantsData && !request.options.contains(.returnCacheDataDontLoad):
            download(task, request: request, revalidating: nil)
        case .fresh(let metadata, let cacheURL):
            task.send(.success(LoadedData(body: nil, cacheURL: cacheURL, source: .disk, metadata: metadata)))
        case .stale where request.options.contains(.returnCacheDataDontLoad):
            // "Use the cache, whatever its age" (as URLCache's option of that name).
            let cacheURL = hasData() ? configuration.dataCache?.url(for: key) : nil
            task.send(cacheURL.map { .success(LoadedData(body: nil, cacheURL: $0, source: .disk)) } ?? .failure(.dataMissingInCache))
        case .stale(let metadata):
            download(task, request: request, revalidating: wantsData && !hasData() ? nil : metadata)
        case .missing:
            download(task, request: request, revalidating: nil)
        }
    }

    private func download(_ task: PipelineTask<LoadedData>, request: ImageRequest, revalidating cached: HTTPCacheMetadata?) {
        guard !request.options.contains(.returnCacheDataDontLoad) else {
            task.send(.failure(.dataMissingInCache))
            return
        }
        let work = Task { [pipeline] in
            var download = DataDownload(pipeline: pipeline, task: task, request: request, revalidating: cached)
            task.send(await download.run())
        }
        task.onCancel { work.cancel() }
    }
}
