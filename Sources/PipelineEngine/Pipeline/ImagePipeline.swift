import Foundation
import Synchronization

/// Loads image requests through the caches and the network.
///
/// The façade of PipelineEngine, after Nuke's `ImagePipeline`. This version
/// covers the data path: look in the disk cache, otherwise download (one
/// download however many tasks ask for the same URL at once) and store the
/// data in the disk cache. Every task reports its lifecycle through
/// `ImageTask.events`.
public final class ImagePipeline: Sendable {
    /// The pipeline's parts and policies.
    public struct Configuration: Sendable {
        /// Downloads data.
        public var dataLoader: DataLoader
        /// The disk cache; `nil` disables disk caching.
        public var dataCache: DataCache?
        /// Whether identical work is shared between tasks. Default: true.
        public var isTaskCoalescingEnabled = true

        /// Creates a configuration.
        public init(dataLoader: DataLoader = DataLoader(), dataCache: DataCache?) {
            self.dataLoader = dataLoader
            self.dataCache = dataCache
        }
    }

    /// The configuration the pipeline was created with.
    public let configuration: Configuration
    private let dataFetches: WorkPool<String, FetchedData>
    private let nextTaskID = Atomic<UInt64>(0)

    /// Creates a pipeline.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.dataFetches = WorkPool(isCoalescingEnabled: configuration.isTaskCoalescingEnabled)
    }

    /// The disk cache, for direct access (contains, get, store, remove).
    public var cache: DataCache? { configuration.dataCache }

    /// Downloads being shared right now (for tests and metrics).
    var activeDataFetchCount: Int { dataFetches.count }

    /// Loads the request's data: from the disk cache, else from the network
    /// (storing it in the disk cache). The response carries the bytes.
    public func loadData(for request: ImageRequest) -> ImageTask {
        makeTask(for: request, purpose: .load)
    }

    /// Makes sure the request's data is in the disk cache: a cached entry is
    /// not read back, a missing one is downloaded and stored. The response
    /// carries no bytes. This is the work of a disk-destination prefetch.
    public func prefetchData(for request: ImageRequest) -> ImageTask {
        makeTask(for: request, purpose: .prefetch)
    }

    // MARK: Running tasks

    private enum Purpose { case load, prefetch }

    private func makeTask(for request: ImageRequest, purpose: Purpose) -> ImageTask {
        let (events, emit) = AsyncStream.makeStream(of: ImageTask.Event.self)
        let id = nextTaskID.add(1, ordering: .relaxed).newValue
        let task = ImageTask(id: id, request: request, events: events)
        task.attach(Task {
            emit.yield(.started)
            let result = await self.run(request, purpose: purpose, emit: emit)
            if case .failure(.cancelled) = result {
                emit.yield(.cancelled)
            } else {
                emit.yield(.completed(result))
            }
            emit.finish()
            return result
        })
        return task
    }

    private func run(
        _ request: ImageRequest, purpose: Purpose, emit: AsyncStream<ImageTask.Event>.Continuation
    ) async -> Result<ImageResponse, ImagePipelineError> {
        if let cached = lookUpDiskCache(request, purpose: purpose) {
            return .success(cached)
        }
        guard !request.options.contains(.returnCacheDataDontLoad) else {
            return .failure(.dataMissingInCache)
        }
        guard !Task.isCancelled else { return .failure(.cancelled) }
        let outcome = await dataFetches.value(
            for: request.dataCacheKey, request: request,
            progress: { completed, total in emit.yield(.progress(completed: completed, total: total)) },
            operation: { [configuration] work in await Self.fetch(request.url, key: request.dataCacheKey, work: work, configuration: configuration) }
        )
        return outcome.map { fetched in
            ImageResponse(
                request: request, source: .network, byteCount: fetched.data.count,
                cacheURL: fetched.cacheURL, data: purpose == .load ? fetched.data : nil
            )
        }
    }

    private func lookUpDiskCache(_ request: ImageRequest, purpose: Purpose) -> ImageResponse? {
        guard let cache = configuration.dataCache, request.readsDiskCache else { return nil }
        let key = request.dataCacheKey
        switch purpose {
        case .prefetch:
            guard let size = cache.sizeOfData(for: key) else { return nil }
            return ImageResponse(request: request, source: .disk, byteCount: size, cacheURL: cache.url(for: key), data: nil)
        case .load:
            guard let data = cache.cachedData(for: key) else { return nil }
            return ImageResponse(request: request, source: .disk, byteCount: data.count, cacheURL: cache.url(for: key), data: data)
        }
    }

    /// The shared download for one URL: fetch, then store once if any
    /// subscriber still wants the disk cache written.
    private static func fetch(
        _ url: URL, key: String, work: SharedWork<FetchedData>, configuration: Configuration
    ) async -> Result<FetchedData, ImagePipelineError> {
        let response: DataLoader.Response
        do {
            response = try await configuration.dataLoader.data(from: url) { completed, total in
                work.reportProgress(completed: completed, total: total)
            }
        } catch .cancelled {
            return .failure(.cancelled)
        } catch {
            return .failure(.dataLoadingFailed(error))
        }
        guard let cache = configuration.dataCache, work.requests.contains(where: \.writesDiskCache) else {
            return .success(FetchedData(data: response.data, cacheURL: nil))
        }
        do {
            let url = try await cache.write(response.data, for: key)
            return .success(FetchedData(data: response.data, cacheURL: url))
        } catch {
            return .failure(.dataCacheWriteFailed(String(describing: error)))
        }
    }
}

/// The outcome of a shared download.
struct FetchedData: Sendable {
    let data: Data
    let cacheURL: URL?
}
