import ArgumentParser
import Foundation
import Logging
import Metrics
import PipelineEngine
import Prometheus
import RedisKit
import Scheduler
import WarmerWorker

/// `warmer worker`: claims and runs jobs until SIGINT or SIGTERM.
struct WorkerCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run a worker until SIGINT/SIGTERM.",
        discussion: """
            On a stop signal the worker claims nothing more, lets running jobs finish for up to --grace-period \
            seconds, then releases what is left back to the queue; a second signal releases them at once. \
            It refuses to start when its cache folder is not writable or Redis does not answer within --redis-wait.
            """
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup(title: "Worker") var worker: WorkerOptions
    @OptionGroup(title: "Pipeline") var pipelineOptions: PipelineOptions
    @OptionGroup(title: "Network") var network: NetworkOptions
    @OptionGroup(title: "Queue") var queueOptions: QueueOptions

    static let settingCommand = SettingCommand.worker

    var settingFlags: GivenFlags {
        redis.givenFlags.merging(wait.givenFlags).merging(cache.givenFlags).merging(worker.givenFlags)
            .merging(pipelineOptions.givenFlags).merging(network.givenFlags).merging(queueOptions.givenFlags)
    }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let logger = Logger(label: "warmer.worker")
        MallocArenas.limit()
        MallocArenas.trimPeriodically()
        let httpPort = settings[Settings.httpPort]
        let registry = httpPort == nil ? nil : Self.bootstrapMetrics()

        let queue = try settings.makeQueue(configuration: settings.queueConfiguration, connections: 2)
        let cacheHealth = CacheFolderHealth(directory: settings.cacheDirectory)
        try await checkBeforeStarting(queue: queue, cacheHealth: cacheHealth, patience: settings.redisPatience,
                                      wait: settings[Settings.redisWait])
        let concurrency = settings[Settings.concurrency]

        let loader = DataLoader(configuration: settings.loaderConfiguration(defaultConnectionsPerHost: max(16, concurrency)))
        let dataCache = try settings.makeDataCache()
        var pipelineConfiguration = settings.pipelineConfiguration(dataLoader: loader, dataCache: dataCache)
        let fleetRateLimits = settings.fleetRateLimits
        if !fleetRateLimits.isUnlimited {
            pipelineConfiguration.downloadPermits = FleetRateLimiter(slots: queue, limits: fleetRateLimits, logger: logger)
        }
        let pipeline = ImagePipeline(configuration: pipelineConfiguration)

        var configuration = Worker.Configuration()
        configuration.concurrency = concurrency
        configuration.gracePeriod = .seconds(settings[Settings.gracePeriod])
        configuration.jobTimeout = settings.jobTimeout
        configuration.cacheSweepInterval = .milliseconds(Int64(settings[Settings.cacheSweepInterval] * 1000))
        if let httpPort, let registry {
            configuration.http = Worker.HTTPEndpoint(
                host: settings[Settings.httpHost], port: httpPort, registry: registry,
                probeClient: RedisClient(url: try settings.redisURL(), name: "redis-probe", timeout: .seconds(2))
            )
        }
        let source = RedisWorkSource(
            queue: queue, workWaitClient: try settings.makeBlockingClient(),
            controlClient: try settings.makeBlockingClient(name: "redis-control"),
            commandsClient: try settings.makeBlockingClient(name: "redis-commands"))
        logger.debug("redis", metadata: ["url": "\(queue.client.url)"])
        let worker = Worker(source: source, sweepClient: queue.client, pipeline: pipeline, dataCache: dataCache,
                            cacheHealth: cacheHealth, configuration: configuration, logger: logger)
        try await worker.run()
        dataCache.flush() // jobs complete once their files are written; this is for anything else staged
    }

    /// The self-checks at start: a cache folder that takes no writes, or a
    /// Redis that does not answer within `--redis-wait`, is a one-line
    /// refusal rather than a worker that fails every job it claims.
    private func checkBeforeStarting(
        queue: JobQueue, cacheHealth: CacheFolderHealth, patience: RedisPatience, wait: Double
    ) async throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: cacheHealth.directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw WarmerError.cannotStart(WarmerError.cacheFolderIsAFile(cacheHealth.directory.path).description)
        }
        try? FileManager.default.createDirectory(at: cacheHealth.directory, withIntermediateDirectories: true)
        if let problem = cacheHealth.problem() {
            throw WarmerError.cannotStart("cache folder \(problem)")
        }
        do {
            _ = try await patience.run { () throws(SchedulerError) in try await queue.queuedCount() }
        } catch {
            throw WarmerError.cannotStart("Redis at \(queue.client.url) did not answer within \(wait) s: \(error)")
        }
    }

    /// Sends every swift-metrics handle of the process to a Prometheus
    /// registry (`/metrics`), with histogram buckets fitting each measure.
    private static func bootstrapMetrics() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        let seconds = { (values: [Double]) in values.map { Duration.milliseconds(Int64($0 * 1000)) } }
        factory.defaultDurationHistogramBuckets = seconds([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120])
        factory.durationHistogramBuckets = [
            "warmer_job_queue_wait_seconds": seconds([0.01, 0.1, 1, 10, 60, 300, 900, 3600, 14_400, 86_400]),
            "warmer_redis_round_trip_seconds": [.microseconds(100), .microseconds(250), .microseconds(500)]
                + seconds([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5]),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }
}
