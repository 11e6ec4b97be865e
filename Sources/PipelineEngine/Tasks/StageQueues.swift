/// One `WorkQueue` per stage of the pipeline.
struct StageQueues: Sendable {
    /// Downloads: asynchronous operations holding a slot until the transfer ends.
    let dataLoading: WorkQueue
    /// Disk reads of data to decode: blocking, on dedicated threads.
    let dataCaching: WorkQueue
    /// libvips decodes: blocking, on dedicated threads.
    let decoding: WorkQueue
    /// libvips processing steps: blocking, on dedicated threads.
    let processing: WorkQueue
    /// libvips encodes: blocking, on dedicated threads.
    let encoding: WorkQueue

    init(_ concurrency: ImagePipeline.StageConcurrency) {
        dataLoading = WorkQueue(name: "data-loading", maxConcurrentOperationCount: concurrency.dataLoading)
        dataCaching = WorkQueue(name: "data-caching", maxConcurrentOperationCount: concurrency.dataCaching)
        decoding = WorkQueue(name: "decoding", maxConcurrentOperationCount: concurrency.decoding)
        processing = WorkQueue(name: "processing", maxConcurrentOperationCount: concurrency.processing)
        encoding = WorkQueue(name: "encoding", maxConcurrentOperationCount: concurrency.encoding)
    }
}
