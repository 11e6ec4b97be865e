import Foundation
import Testing
import TestSupport

/// Issue 25: a worker stalled while it sleeps until the fleet rate-limit
/// slots it reserved gives the slots it woke for too late up, rather than
/// start them at once on top of the next second's (FleetRateLimiter).
/// A suite of its own, beside `FleetRateLimitTests` rather than in its
/// series: each test has its own queue, so its own limits in Redis, and its
/// own origin path in nginx's log.
struct FleetRateStallTests {
    @Test func aStalledWorkerGivesItsMissedSlotsUpRatherThanSendThemAtOnce() async throws {
        // Given two workers at --host-rate-limit 20 (the first with /metrics) on 10 s worth of URLs
        let queue = try QueueProbe()
        let cache = try FleetRateLimitTests.cacheFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let (urls, path) = try FleetRateLimitTests.urls(200, name: "fleet-stall")
        let port = try freeLoopbackPort()
        let http = HTTPProbe(port: port)
        let limit = ["--host-rate-limit", "20"]

        let missed = try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 6,
                                           arguments: limit + ["--http-port", String(port)]) { stalled in
            try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 6, arguments: limit) { other in
                let batch = try await queue.enqueue(urls)
                let started = try await eventually(timeout: .seconds(60)) { try OriginTraffic(path: path).times.count >= 40 }
                try #require(started, "the downloads did not start:\n\(stalled.logs)\n\(other.logs)")
                // When the first is stopped (SIGSTOP) while it sleeps until the
                // slots it reserved, until the other has made 10 more downloads
                // (at least half a second of slots, in which those it holds
                // come due), and then goes on
                let before = try OriginTraffic(path: path).times.count
                let stalledLongEnough = try await stalled[0].pause { try OriginTraffic(path: path).times.count >= before + 10 }
                try #require(stalledLongEnough, "the other worker made no progress:\n\(other.logs)")
                let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(180))
                #expect(status.completed == urls.count, "\(status)\n\(stalled.logs)\n\(other.logs)")
            }
            return try await http.metrics().filter { $0.name == "warmer_fleet_rate_missed_slots_total" }.map(\.value).reduce(0, +)
        }

        // Then it gave the slots it woke for too late up (each download
        // reserved the next free one) instead of starting them together
        // on top of the others': no second, wherever it starts, above 22
        let traffic = try OriginTraffic(path: path)
        #expect(traffic.times.count == urls.count, "\(traffic.summary)")
        #expect(missed >= 1, "slots given up: \(missed); \(traffic.summary)")
        #expect(traffic.busiestWindow(seconds: 1) <= 22, "\(traffic.summary)")
    }
}
