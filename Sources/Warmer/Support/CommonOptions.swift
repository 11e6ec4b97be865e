import ArgumentParser
import Foundation
import PipelineEngine
import Scheduler

/// `--redis` and `--queue`, shared by every command that talks to Redis.
struct RedisOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Redis server URL (env WARMER_REDIS_URL).", valueName: "url"))
    var redis: String = ProcessInfo.processInfo.environment["WARMER_REDIS_URL"] ?? "redis://127.0.0.1:6379"

    @Option(name: .long, help: ArgumentHelp("Queue name.", valueName: "name"))
    var queue: String = "default"

    /// The parsed server URL.
    func redisURL() throws -> RedisURL {
        try RedisURL(parsing: redis)
    }

    /// A queue client over a fresh Redis client of `connections` connections
    /// (a busy worker uses two, so that Redis and the worker work at once).
    func makeQueue(configuration: JobQueue.Configuration = JobQueue.Configuration(), connections: Int = 1) throws -> JobQueue {
        try JobQueue(client: RedisClient(url: redisURL(), name: "redis", connections: connections), name: queue,
                     configuration: configuration)
    }

    /// A client for blocking commands (BLMOVE, XREAD BLOCK), which hold their connection while they wait.
    /// - Parameter name: names its thread and its log lines.
    func makeBlockingClient(name: String = "redis-blocking") throws -> RedisClient {
        try RedisClient(url: redisURL(), name: name, timeout: .seconds(30))
    }
}

/// `--cache-dir`, shared by the commands that use the disk cache.
struct CacheOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Disk cache folder (env WARMER_CACHE_DIR; default $XDG_CACHE_HOME/warmer or ~/.cache/warmer).", valueName: "dir"))
    var cacheDir: String?

    @Option(name: .long, help: ArgumentHelp("Disk cache size limit in MiB, kept by a periodic LRU sweep.", valueName: "mib"))
    var cacheSizeLimit: Int = 10_240

    /// The folder to use, resolved from the flag, the environment, then the default.
    var directory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = cacheDir ?? environment["WARMER_CACHE_DIR"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        let base = environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        return base.appendingPathComponent("warmer", isDirectory: true)
    }

    /// Opens the disk cache.
    func makeDataCache() throws -> DataCache {
        try DataCache(directory: directory, sizeLimit: max(1, cacheSizeLimit) << 20)
    }
}

extension JobPriority: ExpressibleByArgument {}
extension JobDestination: ExpressibleByArgument {}
