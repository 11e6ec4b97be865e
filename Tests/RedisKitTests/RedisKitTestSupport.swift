import RedisKit
import TestSupport

/// A client for the test redis-server.
func makeClient() throws -> RedisClient {
    RedisClient(url: try RedisURL(parsing: TestEnvironment.redisURL()), timeout: .seconds(10))
}
