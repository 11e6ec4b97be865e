import Foundation

/// The data level of the task graph: original data by URL, from the disk
/// cache or the network. One task per URL however many requests need it.
/// `origins` are the requests callers made, to which the `DataCachePolicy`
/// applies (a `[resize]` caller reaches this level through `[]`).
extension ImagePipeline {
    func subscribeData(
        _ request: ImageRequest, origins: @escaping PipelineTask<LoadedData>.Origins, priority: ImagePriority,
        _ handler: @escaping PipelineTask<LoadedData>.Handler
    ) -> PipelineTask<LoadedData>.Subscription {
        dataTasks.subscribe(DataLoadKey(request), priority: priority, origins: origins, starter: { [self] task in
            startDataTask(task, request: request)
        }, handler)
    }

    private func startDataTask(_ task: PipelineTask<LoadedData>, request: ImageRequest) {
        let key = request.dataCacheKey
        if let dataCache = configuration.dataCache, request.readsDiskCache, dataCache.containsData(for: key) {
            // Read the file off the cooperative pool, then fall back to the
            // network if it vanished meanwhile.
            let item = queues.dataCaching.enqueueBlocking(priority: task.priority) { [self] in
                guard !task.isEnded else { return }
                if let data = dataCache.cachedData(for: key) {
                    task.send(.success(LoadedData(data: data, source: .disk, cacheURL: dataCache.url(for: key))))
                } else {
                    download(task, request: request)
                }
            }
            task.setOperation(item)
            return
        }
        download(task, request: request)
    }

    private func download(_ task: PipelineTask<LoadedData>, request: ImageRequest) {
        guard !request.options.contains(.returnCacheDataDontLoad) else {
            task.send(.failure(.dataMissingInCache))
            return
        }
        let item = queues.dataLoading.enqueue(priority: task.priority) { [self] finish in
            let transfer = Task {
                defer { finish() }
                let result = await fetch(request.url, key: request.dataCacheKey, for: task)
                task.send(result)
            }
            task.onCancel { transfer.cancel() }
        }
        task.setOperation(item)
    }

    /// Downloads, then stores the data if the policy says so for any
    /// request still waiting for it.
    private func fetch(_ url: URL, key: String, for task: PipelineTask<LoadedData>) async -> Result<LoadedData, ImagePipelineError> {
        let response: DataLoader.Response
        counters.countDownload()
        do {
            response = try await configuration.dataLoader.data(from: url) { completed, total in
                task.send(progress: completed, total: total)
            }
        } catch .cancelled {
            return .failure(.cancelled)
        } catch {
            return .failure(.dataLoadingFailed(error))
        }
        let policy = configuration.dataCachePolicy
        guard let dataCache = configuration.dataCache,
              task.requests.contains(where: policy.storesOriginalData(for:)) else {
            return .success(LoadedData(data: response.data, source: .network, cacheURL: nil))
        }
        do {
            let url = try await dataCache.write(response.data, for: key)
            return .success(LoadedData(data: response.data, source: .network, cacheURL: url))
        } catch {
            return .failure(.dataCacheWriteFailed(String(describing: error)))
        }
    }
}
