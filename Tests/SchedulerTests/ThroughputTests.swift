import Foundation
import RedisKit
import Testing
import TestSupport
@testable import Scheduler

@Suite("Throughput")
struct ThroughputTests {
    let worker = "test-worker"

    /// The Redis clock's current second.
    private func redisSecond(_ queue: JobQueue) async throws -> Int64 {
        try #require(try await queue.client.send(["TIME"]).array.first?.string.flatMap { Int64($0) })
    }

    @Test func countsEveryCompletionFailureAndByteOfABatchButNoCancellation() async throws {
        // Given a batch of 10 jobs, all claimed
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(10))
        let jobs = try await queue.claim(upTo: 10, worker: worker)
        try #require(jobs.count == 10)
        let start = try await redisSecond(queue)

        // When 6 complete, 2 fail, 1 is dead-lettered and 1 cancelled
        for (index, job) in jobs[0..<6].enumerated() {
            try await queue.finish(job, outcome: .completed(source: "network", bytes: 1_000 + index), worker: worker)
        }
        for job in jobs[6..<8] {
            try await queue.finish(job, outcome: .failed(code: "http_404", message: "The origin answered HTTP 404"), worker: worker)
        }
        try await queue.finish(jobs[8], outcome: .deadLettered(code: "invalid_url", message: "bad"), worker: worker)
        try await queue.finish(jobs[9], outcome: .cancelled, worker: worker)
        let throughput = try await queue.throughput()

        // Then the 900 seconds up to now count exactly those ends
        let points = throughput.points
        #expect(points.count == 900)
        let completed: Int = points.map(\.completed).reduce(0, +)
        let failed: Int = points.map(\.failed).reduce(0, +)
        let bytes: Int64 = points.map(\.bytes).reduce(0, +)
        let completedBytes: Int = (0..<6).map { 1_000 + $0 }.reduce(0, +)
        #expect(completed == 6)
        #expect(failed == 3)
        #expect(bytes == Int64(completedBytes))
        // oldest first, one point per second, ending with the current one
        #expect(zip(points, points.dropFirst()).allSatisfy { $1.second == $0.second + 1 })
        let last = try #require(points.last)
        #expect(last.second >= start, "\(last.second) < \(start)")
        #expect(points.filter { $0.second < start }.allSatisfy { $0.completed == 0 && $0.failed == 0 && $0.bytes == 0 })
    }

    @Test func aFinishedSecondMovesToTheListAndIsReadBackWithZerosAround() async throws {
        // Given the metrics hash holding a second 5 s ago
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1))
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        let past = try await redisSecond(queue) - 5
        try await queue.client.send(["HSET", queue.keys.metrics, "second", String(past), "completed", "3", "failed", "1", "bytes", "300"])

        // When a job completes now
        try await queue.finish(job, outcome: .completed(source: "disk", bytes: 7), worker: worker)

        // Then the past second heads the list, and both seconds are read back
        let head = try await queue.client.send(["LINDEX", queue.keys.metricsSeconds, "0"]).string
        #expect(head == "\(past) 3 1 300")
        let points = try await queue.throughput(seconds: 10).points
        #expect(points.count == 10)
        let pastPoint = points.first { $0.second == past }
        #expect(pastPoint == QueueThroughput.Point(second: past, completed: 3, failed: 1, bytes: 300))
        let later: [QueueThroughput.Point] = points.filter { $0.second > past }
        let laterCompleted: Int = later.map(\.completed).reduce(0, +)
        let laterBytes: Int64 = later.map(\.bytes).reduce(0, +)
        #expect(laterCompleted == 1)
        #expect(laterBytes == 7)
        let emptyOthers: [QueueThroughput.Point] = points.filter { $0.second != past && $0.completed == 0 }
        #expect(emptyOthers.count == 8)
    }

    @Test func theListOfFinishedSecondsKeepsTheNewest900() async throws {
        // Given 900 finished seconds in the list (newest first) and a past second in the hash
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1))
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        let now = try await redisSecond(queue)
        let entries = (0..<900).map { "\(now - 2 - Int64($0)) 1 0 10" }
        try await queue.client.send(["RPUSH", queue.keys.metricsSeconds] + entries)
        try await queue.client.send(["HSET", queue.keys.metrics, "second", String(now - 1), "completed", "2", "failed", "0", "bytes", "20"])

        // When a job ends in a later second
        try await queue.finish(job, outcome: .failed(code: "http_500", message: "HTTP 500"), worker: worker)

        // Then the list still holds 900 entries: the new one first, the oldest gone
        #expect(try await queue.client.send(["LLEN", queue.keys.metricsSeconds]).integer == 900)
        #expect(try await queue.client.send(["LINDEX", queue.keys.metricsSeconds, "0"]).string == "\(now - 1) 2 0 20")
        #expect(try await queue.client.send(["LINDEX", queue.keys.metricsSeconds, "-1"]).string == "\(now - 2 - 898) 1 0 10")
        // and a read of 900 seconds gives 900 points, the 899 previous seconds 1 or 2 completed each
        let points = try await queue.throughput(seconds: 900).points
        #expect(points.count == 900)
        #expect(points.filter { $0.second <= now - 1 }.allSatisfy { $0.completed >= 1 })
        let failed: Int = points.map(\.failed).reduce(0, +)
        #expect(failed == 1)
    }

    @Test func secondsOutsideOneTo900AreClamped() async throws {
        let queue = try makeQueue()
        #expect(try await queue.throughput(seconds: 0).points.count == 1)
        #expect(try await queue.throughput(seconds: 5_000).points.count == 900)
    }
}
