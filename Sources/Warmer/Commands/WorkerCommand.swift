import ArgumentParser
import Foundation
import PipelineEngine
import Scheduler

/// `warmer worker`: claims and runs jobs until SIGINT or SIGTERM.
struct WorkerCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run a worker until SIGINT/SIGTERM.",
        discussion: "On a stop signal the worker claims nothing more, lets running jobs finish for up to --grace-period seconds, then releases what is left back to the queue."
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup(title: "Worker") var worker: WorkerOptions
    @OptionGroup(title: "Pipeline") var pipelineOptions: PipelineOptions
    @OptionGroup(title: "Network") var network: NetworkOptions
    @OptionGroup(title: "Queue") var queueOptions: QueueOptions

    static let settingCommand = SettingCommand.worker

    var settingFlags: GivenFlags {
        redis.givenFlags.merging(cache.givenFlags).merging(worker.givenFlags).merging(pipelineOptions.givenFlags)
            .merging(network.givenFlags).merging(queueOptions.givenFlags)
    }

    func run() async throws {
        let settings = try await resolveSettings()
        MallocArenas.limit()
        let stop = StopSignal()
        let queue = try settings.makeQueue(configuration: settings.queueConfiguration, connections: 2)
        let concurrency = settings[Settings.concurrency]

        let loader = DataLoader(configuration: settings.loaderConfiguration(defaultConnectionsPerHost: max(16, concurrency)))
        let dataCache = try settings.makeDataCache()
        let pipeline = ImagePipeline(configuration: settings.pipelineConfiguration(dataLoader: loader, dataCache: dataCache))

        var configuration = Worker.Configuration()
        configuration.concurrency = concurrency
        configuration.gracePeriod = .seconds(settings[Settings.gracePeriod])
        configuration.jobTimeout = settings.jobTimeout
        let worker = Worker(queue: queue, blockingClient: try settings.makeBlockingClient(),
                            controlClient: try settings.makeBlockingClient(), pipeline: pipeline,
                            configuration: configuration, stop: stop)
        await worker.run()
        dataCache.flush() // jobs complete once their files are written; this is for anything else staged

    }
}
