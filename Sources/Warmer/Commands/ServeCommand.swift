import ArgumentParser
import Foundation
import Hummingbird
import Logging
import RedisKit
import Scheduler
import ServiceLifecycle
import UnixSignals
import WarmerServer

/// `warmer serve`: the HTTP API, live event streams, cache reads and the
/// dashboard, in front of the same Redis as the workers (docs/http-api.md).
struct ServeCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the HTTP API (docs/openapi.yaml) and the live dashboard until SIGINT/SIGTERM.",
        discussion: """
            Stateless: run as many as you like behind any load balancer. Reads need a read or admin token, \
            changes an admin token (WARMER_READ_TOKENS, WARMER_ADMIN_TOKENS or the config file; never flags). \
            Without any token it listens on loopback only and refuses another --http-host. \
            GET /v1/cache reads the cache folder given by --cache-dir.
            """
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup(title: "Server") var serve: ServeOptions
    @OptionGroup(title: "Pipeline (GET /v1/cache?warm=1)") var pipelineOptions: PipelineOptions
    @OptionGroup(title: "Network (GET /v1/cache?warm=1)") var network: NetworkOptions

    static let settingCommand = SettingCommand.serve

    var settingFlags: GivenFlags {
        redis.givenFlags.merging(wait.givenFlags).merging(cache.givenFlags).merging(serve.givenFlags)
            .merging(pipelineOptions.givenFlags).merging(network.givenFlags)
    }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let logger = Logger(label: "warmer.serve")
        let server = settings.serverSettings
        if let problem = ListenAddress.problem(host: server.host, hasTokens: !server.tokens.isEmpty) {
            throw WarmerError.cannotStart(problem)
        }
        var queueConfiguration = JobQueue.Configuration()
        queueConfiguration.agingInterval = .milliseconds(Int(settings[Settings.aging] * 1000))
        queueConfiguration.groupBurst = settings[Settings.groupBurst]
        queueConfiguration.retention = .seconds(settings[Settings.retention])
        // A large POSTed document is parsed here, not decoded in Redis in one long call.
        queueConfiguration.intakeParser = .intakeDocuments()
        let client = RedisClient(url: try settings.redisURL(), name: "redis", connections: 4)
        let queues = QueueDirectory(client: client, configuration: queueConfiguration)
        do {
            _ = try await settings.redisPatience.run { () throws(SchedulerError) in try await queues.queue(server.defaultQueue).queuedCount() }
        } catch {
            throw WarmerError.cannotStart("Redis at \(client.url) did not answer within \(settings[Settings.redisWait]) s: \(error)")
        }
        // The server may not write the cache folder: its reads go to Redis, for the folder's sweeper.
        let accessRecorder = RedisAccessRecorder(directory: settings.cacheDirectory, client: client, logger: logger)
        let app = APIServer(
            settings: server, queues: queues,
            probeClient: RedisClient(url: try settings.redisURL(), name: "redis-probe", timeout: .seconds(2)),
            tails: StreamTails(keepAlive: server.keepAlive, logger: logger) { try settings.makeBlockingClient(name: "redis-events") },
            cache: try CacheRoutes(settings: settings, accessRecorder: accessRecorder), logger: logger
        ).application { channel in
            logger.info("serving", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
        }
        let group = ServiceGroup(configuration: .init(
            services: [accessRecorder, app], gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger))
        try await group.run()
    }
}
