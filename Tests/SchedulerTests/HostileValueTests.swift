import RedisKit
import Testing
@testable import Scheduler

/// Values read from Redis or given on the command line that are absurd, but
/// possible: reading them fails cleanly or saturates, never traps.
@Suite struct HostileValueTests {
    @Test func durationsSaturateInMilliseconds() {
        #expect(Duration.seconds(Int64.max).milliseconds == .max)
        #expect(Duration.seconds(Int64.min).milliseconds == .min)
        #expect(Duration.milliseconds(1500).milliseconds == 1500)
    }

    @Test func aQueueTakesAHugeLeaseDuration() throws {
        // `warmer worker --lease-duration 9223372036854775807` trapped here.
        var configuration = JobQueue.Configuration()
        configuration.leaseDuration = .seconds(Int.max)
        configuration.retention = .seconds(Int.max)
        let queue = try JobQueue(client: RedisClient(url: .localDefault), name: "hostile", configuration: configuration)
        #expect(queue.configuration.leaseDuration == .seconds(Int.max))
    }

    @Test func batchCountersThatOverflowSaturate() throws {
        let status = try #require(BatchStatus(fields: [
            "id": "b", "total": String(Int.max), "completed": String(Int.min), "failed": String(Int.max),
            "cancelled": String(Int.max), "dead": "1",
        ]))
        #expect(status.pending == 0)
        #expect(status.ended == .max)
    }

    @Test func retryDelaysTakeAnyAttemptNumber() {
        let policy = JobRetryPolicy()
        #expect(policy.delay(afterAttempt: .min, random: { $0.lowerBound }) == .milliseconds(2500))
    }

    @Test(arguments: ["redis://127.0.0.1:99999999999", "redis://127.0.0.1:0", "redis://127.0.0.1:65536"])
    func refusesRedisURLsWithoutAUsablePort(_ text: String) {
        // A port beyond Int32 trapped when connecting (`--redis redis://host:99999999999`).
        #expect(throws: RedisError.invalidURL(text)) { try RedisURL(parsing: text) }
    }
}
