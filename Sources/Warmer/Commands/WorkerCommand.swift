import ArgumentParser
import Foundation
import PipelineEngine
import Scheduler

/// `warmer worker`: claims and runs jobs until SIGINT or SIGTERM.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run a worker until SIGINT/SIGTERM.",
        discussion: "On a stop signal the worker claims nothing more, lets running jobs finish for up to --grace-period seconds, then releases what is left back to the queue."
    )

    @OptionGroup var redis: RedisOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup(title: "Pipeline") var pipelineOptions: PipelineOptions
    @OptionGroup(title: "Network") var network: NetworkOptions
    @OptionGroup(title: "Logging") var logging: LoggingOptions
    @OptionGroup(title: "Queue") var queueOptions: QueueOptions

    @Option(help: "Jobs run at once by this process.")
    var concurrency: Int = 8

    @Option(help: ArgumentHelp("Seconds running jobs get to finish after a stop signal.", valueName: "seconds"))
    var gracePeriod: Int = 30

    func validate() throws {
        guard concurrency > 0 else { throw ValidationError("--concurrency must be at least 1") }
    }

    func run() async throws {
        logging.bootstrap()
        MallocArenas.limit()
        let stop = StopSignal()
        let queue = try redis.makeQueue(configuration: queueOptions.configuration, connections: 2)

        let loader = DataLoader(configuration: network.loaderConfiguration(defaultConnectionsPerHost: max(16, concurrency)))
        let dataCache = try cache.makeDataCache()
        var pipelineConfiguration = pipelineOptions.configuration(dataLoader: loader, dataCache: dataCache)
        network.apply(to: &pipelineConfiguration)
        let pipeline = ImagePipeline(configuration: pipelineConfiguration)

        var configuration = Worker.Configuration()
        configuration.concurrency = concurrency
        configuration.gracePeriod = .seconds(gracePeriod)
        configuration.jobTimeout = .seconds(network.jobTimeout)
        let worker = Worker(queue: queue, blockingClient: try redis.makeBlockingClient(),
                            controlClient: try redis.makeBlockingClient(name: "redis-control"), pipeline: pipeline,
                            configuration: configuration, stop: stop)
        await worker.run()
        dataCache.flush() // jobs complete once their files are written; this is for anything else staged

    }
}
