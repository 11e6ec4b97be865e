import Foundation
import Logging
import PipelineEngine
import RedisKit

extension APIServer {
    /// Every route the router serves, as `METHOD /path` with each path
    /// parameter written `{name}` as docs/openapi.yaml writes it; built
    /// over a client that is never used, for the contract test that
    /// compares the two.
    package static func routeList() throws -> [String] {
        let client = RedisClient(url: try RedisURL(parsing: "redis://127.0.0.1:1"), name: "unused")
        let logger = Logger(label: "warmer.routes")
        let cacheFolder = FileManager.default.temporaryDirectory.appendingPathComponent("warmer-route-list").path
        let dataCache = try DataCache(directory: URL(fileURLWithPath: cacheFolder), sweepInterval: nil)
        let pipeline = ImagePipeline(configuration: .init(dataCache: dataCache))
        let server = APIServer(
            settings: ServerSettings(), queues: QueueDirectory(client: client, configuration: .init()),
            probeClient: client, tails: StreamTails(keepAlive: .seconds(15), logger: logger) { client },
            cache: CacheRoutes(pipeline: pipeline, dataCache: dataCache, timeLimit: .seconds(60), concurrency: 1,
                              isPublic: true),
            logger: logger)
        return server.router().routes.map { route in
            let path = "\(route.path)".split(separator: "/", omittingEmptySubsequences: false).map { part in
                part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
            }.joined(separator: "/")
            return "\(route.method.rawValue) \(path)"
        }
    }
}
