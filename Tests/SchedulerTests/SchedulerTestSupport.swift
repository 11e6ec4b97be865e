import Foundation
import RedisKit
import Testing
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

/// A worker's idle wait on `queue` (`waitForWork`, a minute at most),
/// returned once Redis shows it blocked (`CLIENT LIST`): what the test does
/// next happens while the worker waits, with no sleep to hope so. Like an
/// idle worker, it has taken the wake-ups signalled before (a wait would
/// end at once for them), so only a new one can end it.
func startIdleWait(on queue: JobQueue) async throws -> Task<Bool, any Error> {
    let blocking = RedisClient(url: try RedisURL(parsing: TestEnvironment.redisURL()), timeout: .seconds(120))
    let name = TestEnvironment.uniqueName("idle-wait")
    try await blocking.send(["CLIENT", "SETNAME", name])
    while try await queue.waitForWork(using: blocking, timeout: .milliseconds(1)) {}
    let wait = Task { try await queue.waitForWork(using: blocking, timeout: .seconds(60)) }
    let observer = try makeClient()
    let blocked = await eventually {
        RedisClientList.isBlocked(name, in: (try? await observer.send(["CLIENT", "LIST"]).string) ?? "")
    }
    try #require(blocked, "the idle wait never blocked in Redis")
    return wait
}
