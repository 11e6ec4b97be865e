import PipelineEngine
import Scheduler

/// The image pipeline the settings describe.
extension ResolvedSettings {
    /// A pipeline configuration for `dataLoader` and `dataCache`, with the
    /// pipeline's tunables and the network's retry and rate-limit settings.
    func pipelineConfiguration(dataLoader: DataLoader, dataCache: DataCache) -> ImagePipeline.Configuration {
        var configuration = ImagePipeline.Configuration(dataLoader: dataLoader, dataCache: dataCache)
        configuration.dataCachePolicy = self[Settings.dataCachePolicy]
        configuration.dataCacheMode = self[Settings.cacheMode]
        configuration.requiresImageData = !self[Settings.acceptNonImages]
        let memoryCacheSize = self[Settings.memoryCacheSize]
        if memoryCacheSize > 0 {
            var limits = MemoryCacheLimits.serverDefault
            limits.costLimit = memoryCacheSize << 20
            configuration.imageCache = ImageCache(limits: limits)
        }
        configuration.imageLimits = ImageLimits(maxPixelCount: self[Settings.maxPixels] * 1_000_000)
        configuration.processingLimits.maxOutputPixelCount = self[Settings.maxOutputPixels] * 1_000_000
        configuration.processingLimits.maxOutputSide = self[Settings.maxOutputSide]
        configuration.memoryBudget = MemoryBudget(capacity: self[Settings.memoryBudget] << 20)
        if let imageThreads = self[Settings.imageThreads] {
            configuration.concurrency.decoding = imageThreads
            configuration.concurrency.processing = imageThreads
            configuration.concurrency.encoding = imageThreads
        }
        configuration.retryPolicy.maximumAttempts = self[Settings.maxAttempts]
        configuration.rateLimit.global = self[Settings.rateLimit].map { RateLimit(requestsPerSecond: $0, burst: max(1, Int($0))) }
        configuration.rateLimit.perHost = self[Settings.hostRateLimit].map { RateLimit(requestsPerSecond: $0, burst: max(1, Int($0))) }
        configuration.rateLimit.hostOverrides = fleetRateLimits.hostOverrides.mapValues {
            RateLimit(requestsPerSecond: $0, burst: max(1, Int($0)))
        }
        return configuration
    }

    /// The rate limits every worker of the queue shares in Redis: the same
    /// figures as each process's own cap (`--rate-limit`, `--host-rate-limit`,
    /// `--host-rate-limit-override`).
    var fleetRateLimits: FleetRateLimits {
        var overrides: [String: Double] = [:]
        for text in self[Settings.hostRateLimitOverrides] {
            if let (host, rate) = Settings.hostRateOverride(text) { overrides[host] = rate }
        }
        return FleetRateLimits(global: self[Settings.rateLimit], perHost: self[Settings.hostRateLimit], hostOverrides: overrides)
    }
}
