import Foundation
import RedisKit
import TestSupport
@testable import Scheduler

/// A client for the test redis-server.
func makeClient() throws -> RedisClient {
    RedisClient(url: try RedisURL(parsing: TestEnvironment.redisURL()), timeout: .seconds(10))
}

/// A queue of its own for one test, with optional tweaks.
func makeQueue(_ configure: (inout JobQueue.Configuration) -> Void = { _ in }) throws -> JobQueue {
    var configuration = JobQueue.Configuration()
    configure(&configuration)
    return try JobQueue(client: makeClient(), name: TestEnvironment.uniqueName("q"), configuration: configuration)
}

/// Example URLs (the queue never fetches them).
func urls(_ count: Int, _ label: String = "img") -> [String] {
    (0..<count).map { "https://images.example/\(label)-\($0).jpg" }
}
