import Foundation
import Logging
import RedisKit

extension WarmerServer {
    /// Every route the router serves, as `METHOD /path` with each path
    /// parameter written `{name}` as docs/openapi.yaml writes it; built
    /// over a client that is never used, for the contract test that
    /// compares the two.
    static func routeList() throws -> [String] {
        let client = RedisClient(url: try RedisURL(parsing: "redis://127.0.0.1:1"), name: "unused")
        let logger = Logger(label: "warmer.routes")
        let cacheFolder = FileManager.default.temporaryDirectory.appendingPathComponent("warmer-route-list").path
        let settings = ResolvedSettings(entries: [
            Settings.cacheDir.info.name: .init(value: Optional(cacheFolder), source: .builtInDefault),
        ])
        let server = WarmerServer(
            settings: ServerSettings(), queues: QueueDirectory(client: client, configuration: .init()),
            probeClient: client, tails: StreamTails(keepAlive: .seconds(15), logger: logger) { client },
            cache: try CacheRoutes(settings: settings), logger: logger)
        return server.router().routes.map { route in
            let path = "\(route.path)".split(separator: "/", omittingEmptySubsequences: false).map { part in
                part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
            }.joined(separator: "/")
            return "\(route.method.rawValue) \(path)"
        }
    }
}
