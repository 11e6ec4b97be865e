import RedisKit
import Scheduler

/// The Redis clients and the queue the settings describe.
extension ResolvedSettings {
    /// The queue's name.
    var queueName: String { self[Settings.queue] }

    /// The parsed server URL (checked when the settings were resolved).
    func redisURL() throws -> RedisURL {
        try RedisURL(parsing: self[Settings.redisURL])
    }

    /// A queue client over a fresh Redis client of `connections` connections
    /// (a busy worker uses two, so that Redis and the worker work at once).
    func makeQueue(configuration: JobQueue.Configuration = JobQueue.Configuration(), connections: Int = 1) throws -> JobQueue {
        try JobQueue(client: RedisClient(url: redisURL(), name: "redis", connections: connections), name: queueName,
                     configuration: configuration)
    }

    /// A client for blocking commands (BLMOVE, XREAD BLOCK), which hold their
    /// connection while they wait; `name` tells its outages apart in the log.
    func makeBlockingClient(name: String = "redis-blocking") throws -> RedisClient {
        try RedisClient(url: redisURL(), name: name, timeout: .seconds(30), measuresRoundTrips: false)
    }

    /// How long a command waits out a Redis outage (`redis-wait`).
    var redisPatience: RedisPatience {
        RedisPatience(limit: .milliseconds(Int(self[Settings.redisWait] * 1000)))
    }
}
