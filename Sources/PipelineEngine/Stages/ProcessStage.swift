/// Processing, on the processing queue with the configuration's
/// `imageProcessor`: the level `[p1…pn]` is `pn` applied to the image of
/// the level `[p1…pn-1]`, so chains with a common prefix share its work.
struct ProcessStage {
    let pipeline: ImagePipeline

    /// Waits on the level below `request` (from `source` when given) and
    /// applies `request`'s last processor to its image.
    func process(_ task: PipelineTask<LoadedImage>, request: ImageRequest, source: LoadedData?) {
        guard let processor = request.processors.last else {
            return DecodeStage(pipeline: pipeline).decodeOriginal(task, request: request, source: source)
        }
        let configuration = pipeline.configuration
        let dependency = ImageStage(pipeline: pipeline).subscribe(
            request.droppingLastProcessor, origins: { task.requests }, priority: task.priority, source: source
        ) { [pipeline] event in
            task.relay(event) { input in
                let item = pipeline.queues.processing.enqueueBlocking(priority: task.priority) {
                    guard !task.isEnded else { return }
                    pipeline.counters.countProcessing(processor)
                    let result = Result { () throws(ImageProcessingError) in
                        try PipelineMetrics.measure(.process) { () throws(ImageProcessingError) in
                            try configuration.imageProcessor.process(
                                input.image, with: processor, limits: configuration.processingLimits,
                                budget: configuration.memoryBudget)
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
