import PipelineEngine
import WarmerServer

extension CacheRoutes {
    /// The routes over the cache folder and pipeline settings of `warmer
    /// serve` (`--cache-dir`, the pipeline and network settings, `job-timeout`,
    /// `warm-concurrency`). Reads are counted through `accessRecorder`
    /// (in Redis, for the folder's sweeper), else by refreshing the files' dates.
    init(settings: ResolvedSettings, accessRecorder: (any DataCacheAccessRecording)? = nil) throws {
        let dataCache = try settings.makeDataCache(accessRecorder: accessRecorder)
        let pipeline = ImagePipeline(configuration: settings.pipelineConfiguration(
            dataLoader: DataLoader(configuration: settings.loaderConfiguration()), dataCache: dataCache))
        self.init(pipeline: pipeline, dataCache: dataCache, timeLimit: settings.jobTimeout,
                  concurrency: settings[Settings.warmConcurrency], isPublic: settings.serverSettings.tokens.isEmpty)
    }
}
