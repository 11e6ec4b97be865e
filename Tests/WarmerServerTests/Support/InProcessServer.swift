import Foundation
import Hummingbird
import Logging
import PipelineEngine
import RedisKit
import Scheduler
import ServiceLifecycle
import TestSupport
import WarmerWorker
@testable import WarmerServer

/// An `APIServer` built in the test process, as `warmer serve` builds it
/// (Sources/Warmer/Commands/ServeCommand.swift), over a cache folder of its
/// own and either the test Redis (`redis: true`, scripts/test.sh's
/// `WARMER_TEST_REDIS_URL`) or a client that is never used (a closed
/// loopback port), for the tests that need no service.
///
/// `routed` hands requests to the router directly (`RoutedClient`); `live`
/// serves on a free loopback port.
struct InProcessServer: Sendable {
    /// The read token of a server with tokens.
    static let readToken = "read-token-for-in-process-tests"
    /// The admin token of a server with tokens.
    static let adminToken = "admin-token-for-in-process-tests"

    /// The server.
    let server: APIServer
    /// Its cache folder (`GET /v1/cache` reads it).
    let dataCache: DataCache
    /// The folder that holds the cache, removed by `remove()`.
    let folder: URL
    /// The Redis client its queues use.
    let client: RedisClient
    private let logger: Logger

    /// A server with `tokens` (else none: the loopback guard is on), the
    /// given CORS origins and body limit, over the test Redis when `redis`.
    init(tokens: Bool = true, corsOrigins: [String] = [], maxBody: Int? = nil, redis: Bool = false,
         configure: (inout ServerSettings) -> Void = { _ in }) throws {
        var settings = ServerSettings()
        settings.host = "127.0.0.1"
        settings.port = 0
        if tokens { settings.tokens = BearerTokens(read: [Self.readToken], admin: [Self.adminToken]) }
        settings.corsOrigins = corsOrigins
        if let maxBody { settings.maxBody = maxBody }
        configure(&settings)
        let url = redis ? try TestEnvironment.redisURL() : "redis://127.0.0.1:1"
        client = RedisClient(url: try RedisURL(parsing: url), name: "in-process-serve", timeout: .seconds(10))
        folder = try TestEnvironment.temporaryDirectory("in-process-serve")
        dataCache = try DataCache(directory: folder.appendingPathComponent("cache", isDirectory: true), sweepInterval: nil)
        let pipeline = ImagePipeline(configuration: .init(dataCache: dataCache))
        var queueConfiguration = JobQueue.Configuration()
        queueConfiguration.intakeParser = .intakeDocuments()
        let logger = Logger(label: "warmer.serve.test")
        self.logger = logger
        let client = self.client
        let redisURL = url
        server = APIServer(
            settings: settings, queues: QueueDirectory(client: client, configuration: queueConfiguration),
            probeClient: client,
            tails: StreamTails(keepAlive: settings.keepAlive, logger: logger) {
                RedisClient(url: try RedisURL(parsing: redisURL), name: "in-process-events", timeout: .seconds(30), measuresRoundTrips: false)
            },
            cache: CacheRoutes(pipeline: pipeline, dataCache: dataCache, timeLimit: .seconds(60), concurrency: 1,
                               isPublic: !tokens),
            logger: logger)
    }

    /// A client that hands requests straight to the server's router.
    func routedClient() -> RoutedClient {
        RoutedClient(router: server.router(), logger: logger)
    }

    /// Runs `test` with a client that hands requests straight to the router.
    func routed<Value>(_ test: (RoutedClient) async throws -> Value) async throws -> Value {
        try await test(routedClient())
    }

    /// Serves on a free loopback port while `test` runs with that port, as
    /// `warmer serve` does (the HTTP/1.1 limits, the request deadline, event
    /// streams that end on hang-up), then stops the server gracefully.
    func live<Value: Sendable>(_ test: @Sendable (_ port: Int) async throws -> Value) async throws -> Value {
        let (ports, announce) = AsyncStream.makeStream(of: Int.self)
        let application = server.application { channel in
            if let port = channel.localAddress?.port { announce.yield(port) }
            announce.finish()
        }
        let services = ServiceGroup(configuration: .init(services: [application], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // A server that could not start announces no port: the wait below ends too.
                defer { announce.finish() }
                try await services.run()
            }
            defer { group.cancelAll() }
            guard let port = await ports.first(where: { _ in true }) else {
                try await group.next()
                throw TestHarnessError("the in-process server stopped before it listened")
            }
            do {
                let value = try await test(port)
                await services.triggerGracefulShutdown()
                try await group.next()
                return value
            } catch {
                await services.triggerGracefulShutdown()
                throw error
            }
        }
    }

    /// A queue client of the server's Redis for queue `name`.
    func queue(_ name: String) throws -> JobQueue {
        try JobQueue(client: client, name: name)
    }

    /// Removes the cache folder.
    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
