import PipelineEngine
import Scheduler

/// The worker's two `ImagePrefetcher`s, one per job destination, over one
/// pipeline (so a disk job and a processed job for the same URL share the
/// download). Each runs up to the worker's concurrency and keeps every job's
/// own priority.
struct JobPrefetchers: Sendable {
    /// Original data to the disk cache, never decoded.
    let disk: ImagePrefetcher
    /// Decoded, processed, encoded and stored.
    let processed: ImagePrefetcher

    init(pipeline: ImagePipeline, concurrency: Int) {
        disk = ImagePrefetcher(pipeline: pipeline, destination: .diskCache, maxConcurrentRequestCount: concurrency, priority: nil)
        processed = ImagePrefetcher(pipeline: pipeline, destination: .memoryCache, maxConcurrentRequestCount: concurrency, priority: nil)
    }

    /// Starts `request` on the prefetcher of `destination`.
    func prefetch(_ request: ImageRequest, to destination: JobDestination) -> ImageTask {
        switch destination {
        case .disk: disk.prefetch(request)
        case .processed: processed.prefetch(request)
        }
    }
}
