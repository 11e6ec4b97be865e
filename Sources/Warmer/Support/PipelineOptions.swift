import ArgumentParser
import Foundation
import PipelineEngine

/// The pipeline's tunables, shared by `worker` and `warm`.
struct PipelineOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "What the disk cache keeps: automatic (what each job asks for: the original for disk jobs, the encoded result for processed ones), storeOriginalData, storeEncodedImages or storeAll.",
        valueName: "policy"))
    var dataCachePolicy: DataCachePolicy = .automatic

    @Option(help: ArgumentHelp(
        "aggressive: keep every response for ever, ignoring HTTP caching headers (immutable URLs). http: follow Cache-Control, Expires, ETag and Last-Modified as a shared HTTP cache: fresh entries are served without a request, stale ones revalidated (304).",
        valueName: "mode"))
    var cacheMode: DataCacheMode = .aggressive

    @Option(help: ArgumentHelp("Memory cache of decoded images, in MiB (0 disables it). A warmer's results live on disk; this only lets jobs share processed images.", valueName: "mib"))
    var memoryCacheSize: Int = 16

    @Option(help: ArgumentHelp("Largest image accepted, in megapixels, checked from the header before decoding.", valueName: "mpx"))
    var maxPixels: Int = 100

    @Option(help: ArgumentHelp("Largest image a processing step may produce, in megapixels.", valueName: "mpx"))
    var maxOutputPixels: Int = ProcessingLimits.default.maxOutputPixelCount / 1_000_000

    @Option(help: ArgumentHelp("Largest width or height a processing step may produce, in pixels.", valueName: "px"))
    var maxOutputSide: Int = ProcessingLimits.default.maxOutputSide

    @Option(help: ArgumentHelp("Decoded image memory in flight, in MiB: larger images wait for room; one larger than this fails.", valueName: "mib"))
    var memoryBudget: Int = 1024

    @Option(help: ArgumentHelp("Concurrent libvips operations per stage (decode, process, encode); default: one per core, plus one.", valueName: "n"))
    var imageThreads: Int?

    func validate() throws {
        guard memoryCacheSize >= 0 else { throw ValidationError("--memory-cache-size must be 0 or more") }
        guard (1...1_000_000).contains(maxPixels) else { throw ValidationError("--max-pixels must be 1-1000000") }
        guard (1...1_000_000).contains(maxOutputPixels) else { throw ValidationError("--max-output-pixels must be 1-1000000") }
        guard memoryBudget >= 16 else { throw ValidationError("--memory-budget must be at least 16 (MiB)") }
        guard (1...100_000).contains(maxOutputSide) else { throw ValidationError("--max-output-side must be 1-100000") }
        if let imageThreads, imageThreads < 1 { throw ValidationError("--image-threads must be at least 1") }
    }

    /// A pipeline configuration for `dataLoader` and `dataCache`.
    func configuration(dataLoader: DataLoader, dataCache: DataCache) -> ImagePipeline.Configuration {
        var configuration = ImagePipeline.Configuration(dataLoader: dataLoader, dataCache: dataCache)
        configuration.dataCachePolicy = dataCachePolicy
        configuration.dataCacheMode = cacheMode
        if memoryCacheSize > 0 {
            var limits = MemoryCacheLimits.serverDefault
            limits.costLimit = memoryCacheSize << 20
            configuration.imageCache = ImageCache(limits: limits)
        }
        configuration.imageLimits = ImageLimits(maxPixelCount: maxPixels * 1_000_000)
        configuration.processingLimits.maxOutputPixelCount = maxOutputPixels * 1_000_000
        configuration.processingLimits.maxOutputSide = maxOutputSide
        configuration.memoryBudget = MemoryBudget(capacity: memoryBudget << 20)
        if let imageThreads {
            configuration.concurrency.decoding = imageThreads
            configuration.concurrency.processing = imageThreads
            configuration.concurrency.encoding = imageThreads
        }
        return configuration
    }
}

extension DataCachePolicy: ExpressibleByArgument {}
extension DataCacheMode: ExpressibleByArgument {}
