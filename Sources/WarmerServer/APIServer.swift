import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import RedisKit

/// The HTTP server of `warmer serve`: the routes of docs/openapi.yaml
/// behind the problem, CORS and access middlewares, on Hummingbird.
///
/// The server keeps no state of its own beyond caches and open streams:
/// every answer comes from Redis or the cache folder, so any number of
/// them can run behind a load balancer.
package struct APIServer {
    let settings: ServerSettings
    let queues: QueueDirectory
    let probeClient: RedisClient
    /// The shared readers of the event streams.
    let tails: StreamTails
    /// `GET /v1/cache`, over the cache folder and its warming pipeline.
    let cache: CacheRoutes
    let logger: Logger

    /// A server with `settings`, over the queues of `queues`, answering
    /// `/readyz` with a PING through `probeClient`, streaming events through
    /// `tails` and reading images through `cache`.
    package init(settings: ServerSettings, queues: QueueDirectory, probeClient: RedisClient, tails: StreamTails,
                 cache: CacheRoutes, logger: Logger) {
        self.settings = settings
        self.queues = queues
        self.probeClient = probeClient
        self.tails = tails
        self.cache = cache
        self.logger = logger
    }

    /// The router: every route, and the middlewares in the order they run.
    func router() -> Router<ServerContext> {
        let router = Router(context: ServerContext.self)
        router.add(middleware: ProblemMiddleware(maxBody: settings.maxBody))
        router.add(middleware: RequestLogMiddleware())
        if settings.tokens.isEmpty {
            router.add(middleware: LoopbackGuardMiddleware(allowedOrigins: Set(settings.corsOrigins)))
        }
        if !settings.corsOrigins.isEmpty {
            router.add(middleware: AllowedOriginsMiddleware(origins: settings.corsOrigins))
            // Hummingbird's CORS middleware wraps what the routes throw in an error
            // of its own, which the outer ProblemMiddleware would answer as a 500:
            // the routes' problems become answers here, and CORS adds its headers.
            router.add(middleware: ProblemMiddleware(maxBody: settings.maxBody))
        }
        router.add(middleware: AccessMiddleware(tokens: settings.tokens))
        ServerRoutes(probeClient: probeClient).add(to: router)
        DashboardRoutes(defaultQueue: settings.defaultQueue).add(to: router)
        QueueRoutes(queues: queues).add(to: router)
        BatchRoutes(queues: queues, maxBody: settings.maxBody, processingRules: cache.processingRules).add(to: router)
        JobRoutes(queues: queues, maxBody: settings.maxBody).add(to: router)
        DeadLetterRoutes(queues: queues, maxBody: settings.maxBody).add(to: router)
        let permits = EventStreamPermits(limit: settings.maxEventStreams, perCaller: settings.maxEventStreamsPerCaller)
        EventRoutes(queues: queues, tails: tails, permits: permits).add(to: router)
        ReadRoutes(queues: queues, permits: permits).add(to: router)
        cache.add(to: router)
        return router
    }

    /// The application: the router on HTTP/1.1 with the header limits, the
    /// idle timeout and the whole-request deadline of docs/http-api.md,
    /// "Limits", and event streams that end when their client hangs up.
    package func application(onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) -> some ApplicationProtocol {
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
            maxHeaderFieldSize: settings.maxHeaderBytes, maxHeaderListSize: settings.maxHeaderBytes,
            maxHeaderFieldCount: settings.maxHeaderFields)
        let idle = TimeAmount.nanoseconds(Int64(settings.requestTimeout.components.seconds) * 1_000_000_000)
        let timeout = settings.requestTimeout
        return Application(
            router: router(),
            server: .http1(configuration: .init(
                additionalChannelHandlers: [RequestDeadlineHandler(timeout: timeout), EventStreamHangupHandler()], idleTimeout: idle,
                httpDecoderConfiguration: decoder)),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "warmer"),
            onServerRunning: onServerRunning,
            logger: logger)
    }
}
