import Testing
@testable import Scheduler

/// Priorities without starvation: the score's aging handicap.
@Suite("Aging")
struct AgingTests {
    /// Claims and finishes one job per round while `flood` high-priority jobs
    /// arrive each round; returns the round in which the veryLow job was claimed.
    private func roundClaimingTheVeryLowJob(aging: Duration, rounds: Int) async throws -> Int? {
        let queue = try makeQueue { $0.agingInterval = aging }
        _ = try await queue.enqueue(urls: ["https://images.example/patient.jpg"], priority: .veryLow)
        for round in 1...rounds {
            _ = try await queue.enqueue(urls: urls(2, "flood-\(round)"), priority: .high)
            let job = try #require(try await queue.claim(upTo: 1, worker: "w").first)
            if job.priority == JobPriority.veryLow.rawValue { return round }
            try await queue.finish(job, outcome: .completed(source: "disk", bytes: 1), worker: "w")
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    @Test func aVeryLowJobIsServedUnderAConstantFloodOfHighPriorityJobs() async throws {
        // Given aging of 100 ms per level (veryLow is 3 levels below high), and
        // a flood that grows the high-priority backlog every round
        // When jobs are claimed one at a time (each round at least 20 ms)
        let round = try await roundClaimingTheVeryLowJob(aging: .milliseconds(100), rounds: 200)
        // Then the veryLow job is served once the backlog's oldest high job is
        // ~0.3 s younger than it (some 30 rounds; a slower machine needs
        // fewer): eventually, not never
        #expect(round != nil, "the veryLow job starved")
    }

    @Test func aJobsScoreIsItsArrivalPlusAHandicapPerLevel() async throws {
        // Given aging of 2 s per level
        let queue = try makeQueue { $0.agingInterval = .seconds(2) }
        // When a veryLow and a veryHigh job arrive
        _ = try await queue.enqueue(urls: urls(1, "low"), priority: .veryLow)
        _ = try await queue.enqueue(urls: urls(1, "high"), priority: .veryHigh)
        // Then each score is the arrival (µs, at the job's enqueue time) plus
        // 4 levels × 2 s for veryLow and nothing for veryHigh
        for (id, levels) in [("1", 4), ("2", 0)] {
            let fields = try await queue.client.send(["HMGET", queue.keys.job(id), "score", "enqueuedAt"]).array.compactMap(\.integer)
            let handicapMilliseconds = fields[0] / 1000 - fields[1]
            #expect((levels * 2_000)..<(levels * 2_000 + 1_000) ~= handicapMilliseconds, "job \(id): \(fields)")
        }
    }

    @Test func withAgingOffPrioritiesAreStrict() async throws {
        let round = try await roundClaimingTheVeryLowJob(aging: .zero, rounds: 30)
        #expect(round == nil)
    }

    @Test func olderJobsOfALevelGoFirst() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(3, "first"), priority: .low)
        _ = try await queue.enqueue(urls: urls(3, "second"), priority: .low)
        let claimed = try await queue.claim(upTo: 6, worker: "w")
        #expect(claimed.map(\.url) == urls(3, "first") + urls(3, "second"))
    }
}
