import Foundation

/// The encoding level of the task graph: encodes the requested image, on
/// the encoding queue with the configuration's `imageEncoder`, and has
/// `StoreStage` write it under `processedDataCacheKey`. Used only when the
/// `dataCachePolicy` stores encoded images for the request; one encode
/// however many requests need it.
struct EncodeStage {
    let pipeline: ImagePipeline

    /// Joins (or starts) the encoding of `request`'s image.
    /// - Parameter source: the original data, when the caller has it already (see `ImageStage.subscribe`).
    func subscribe(
        _ request: ImageRequest, priority: ImagePriority, source: LoadedData? = nil,
        _ handler: @escaping PipelineTask<LoadedImage>.Handler
    ) -> PipelineTask<LoadedImage>.Subscription {
        pipeline.encodeTasks.subscribe(ImageLoadKey(request), priority: priority, origins: { [request] }, starter: { [self] task in
            start(task, request: request, source: source)
        }, handler)
    }

    private func start(_ task: PipelineTask<LoadedImage>, request: ImageRequest, source: LoadedData?) {
        let dependency = ImageStage(pipeline: pipeline).subscribe(
            request, origins: { task.requests }, priority: task.priority, source: source
        ) { [self] event in
            task.relay(event) { loaded in
                // Read from disk already encoded: nothing to encode or store.
                // (An image from memory is encoded: a lower level in memory,
                // [p1] serving [p1, p2], says `memory` too.)
                guard loaded.encoded == nil else {
                    task.send(.success(loaded))
                    return
                }
                let item = pipeline.queues.encoding.enqueueBlocking(priority: task.priority) { [self] in
                    guard !task.isEnded else { return }
                    switch encode(loaded, request: request) {
                    case .failure(let error): task.send(.failure(error))
                    case .success(let data): StoreStage(pipeline: pipeline).storeVariant(data, of: loaded, request: request, for: task)
                    }
                }
                task.setOperation(item)
            }
        }
        task.setDependency(dependency.erased)
    }

    /// Runs on an encoding thread. Without an output encoding in the request,
    /// the image is encoded in its source's format.
    private func encode(_ loaded: LoadedImage, request: ImageRequest) -> Result<Data, ImagePipelineError> {
        let encoding = request.encoding ?? OutputEncoding(format: (loaded.sourceFormat ?? .jpeg).defaultOutputFormat)
        let encoder = pipeline.configuration.imageEncoder
        pipeline.counters.countEncode()
        return Result { () throws(ImageProcessingError) in
            try PipelineMetrics.measure(.encode) { () throws(ImageProcessingError) in try encoder.encode(loaded.image, as: encoding) }
        }
            .mapError { .imageProcessingFailed($0) }
    }
}
