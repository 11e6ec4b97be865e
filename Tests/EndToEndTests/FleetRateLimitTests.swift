import Foundation
import Testing
import TestSupport

/// Issue 24, item 1: `--rate-limit` and `--host-rate-limit` hold for every
/// worker of a queue together (rate-permit.lua in Redis), measured at the
/// origin: nginx's access log gives each request's end (`$msec`). Only the
/// seconds between the first and the last request count, so a slow machine
/// (which can only undershoot a limit) does not decide the mean.
@Suite(.serialized)
struct FleetRateLimitTests {
    /// `count` URLs of one small image of the origin, each its own job
    /// (`?n=` makes them distinct; nginx logs the path without it), and the
    /// path the access log names them by.
    static func urls(_ count: Int, name: String) throws -> (urls: [URL], path: String) {
        let file = try Origin.makeImage(TestEnvironment.uniqueName(name), width: 64, height: 48)
        let base = try Origin.url(of: file).absoluteString
        return ((0..<count).compactMap { URL(string: base + "?n=\($0)") }, file.lastPathComponent)
    }

    static func cacheFolder() throws -> URL { try TestEnvironment.temporaryDirectory("cache") }

    @Test func fourWorkersAtTwentyPerHostStartTwentyDownloadsASecondTogether() async throws {
        // Given four workers, each told --host-rate-limit 20, and 13 s worth of URLs of one origin
        let queue = try QueueProbe()
        let cache = try Self.cacheFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let (urls, path) = try Self.urls(260, name: "fleet-four")

        try await withWorkers(4, queue: queue, cacheDirectory: cache, concurrency: 6, arguments: ["--host-rate-limit", "20"]) { workers in
            // When they warm them together
            let batch = try await queue.enqueue(urls)
            let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(180))
            #expect(status.completed == urls.count, "\(status)\n\(workers.logs)")
        }

        // Then the origin saw 20 a second, not 80: no second above 22, a mean within 5%
        let traffic = try OriginTraffic(path: path)
        #expect(traffic.times.count == urls.count, "\(traffic.summary)")
        #expect(traffic.busiestSecond <= 22, "\(traffic.summary)")
        #expect(abs(traffic.meanRate - 20) <= 1, "\(traffic.summary)")
    }

    @Test func aWorkerKilledMidRunLeaksNoPermitsAndTheOthersKeepTheFullRate() async throws {
        // Given three workers at --host-rate-limit 20 on 15 s worth of URLs
        let queue = try QueueProbe()
        let cache = try Self.cacheFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let (urls, path) = try Self.urls(300, name: "fleet-kill")

        var killedAt = 0.0
        try await withWorkers(3, queue: queue, cacheDirectory: cache, concurrency: 6,
                              arguments: ["--host-rate-limit", "20", "--lease-duration", "3"]) { workers in
            let batch = try await queue.enqueue(urls)
            // When one of them is killed (kill -9) once 50 downloads went through
            let started = try await eventually(timeout: .seconds(60)) { try OriginTraffic(path: path).times.count >= 50 }
            try #require(started, "the downloads did not start:\n\(workers.logs)")
            killedAt = Date().timeIntervalSince1970
            await workers[0].kill()
            let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(180))
            #expect(status.completed == urls.count, "\(status)\n\(workers.logs)")
        }

        // Then, once the killed worker's last reservations (one horizon, 1 s
        // at normal priority) are past, the two others still start 20 a second
        let after = try OriginTraffic(path: path).since(killedAt + 1)
        #expect(after.times.count >= 150, "\(after.summary)")
        #expect(after.busiestSecond <= 22, "\(after.summary)")
        #expect(abs(after.meanRate - 20) <= 1, "\(after.summary)")
    }

    @Test func aRedisRestartThatLosesItsDataBreaksTheLimitForAtMostOneWindow() async throws {
        // Given a redis-server of the test's own, two workers at
        // --host-rate-limit 20, and a batch under way
        let redis = try await RedisServer.start()
        defer { redis.stop() }
        let queue = try QueueProbe(redisURL: redis.url)
        let cache = try Self.cacheFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let (first, firstPath) = try Self.urls(200, name: "fleet-restart-a")
        let (second, secondPath) = try Self.urls(200, name: "fleet-restart-b")

        var restartedAt = 0.0
        try await withWorkers(2, queue: queue, cacheDirectory: cache, concurrency: 6, arguments: ["--host-rate-limit", "20"]) { workers in
            _ = try await queue.enqueue(first)
            let started = try await eventually(timeout: .seconds(60)) { try OriginTraffic(path: firstPath).times.count >= 40 }
            try #require(started, "the downloads did not start:\n\(workers.logs)")
            // When Redis is killed and comes back empty (no append-only
            // file: every reservation forgotten), and a second batch follows
            await redis.kill()
            try await redis.restart(arguments: ["--appendonly", "no"])
            restartedAt = Date().timeIntervalSince1970
            let batch = try await queue.enqueue(second)
            let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(180))
            #expect(status.completed == second.count, "\(status)\n\(workers.logs)")
        }

        // Then the origin got at most one window (one second, 20 downloads)
        // more than the limit across the restart: any two seconds hold at
        // most 3 × 20 (+2), and no second outside the restart's two holds more than 22…
        let all = OriginTraffic(times: try OriginTraffic(path: firstPath).times + OriginTraffic(path: secondPath).times)
        let bySecond = Dictionary(grouping: all.times) { Int($0.rounded(.down)) }.mapValues(\.count)
        for (second, count) in bySecond {
            let pair = count + (bySecond[second + 1] ?? 0)
            #expect(pair <= 62, "seconds \(second) and \(second + 1): \(pair) requests; \(all.summary)")
            let nearRestart = Double(second) >= restartedAt - 2 && Double(second) <= restartedAt + 2
            if !nearRestart { #expect(count <= 22, "second \(second): \(count) requests; \(all.summary)") }
        }
        // …and from a second after it the limit holds again. (No mean here:
        // the workers' first ends after the restart are refused, and the
        // origin's pace then is not the limiter's alone.)
        let after = all.since(restartedAt + 1)
        #expect(after.times.count >= 150, "\(after.summary)")
        #expect(after.busiestSecond <= 22, "\(after.summary)")
    }

    @Test func waitsForFleetPermitsAreCountedByHostInTheWorkersMetrics() async throws {
        // Given a worker with /metrics at --host-rate-limit 5 and 20 URLs of one origin (4 s worth)
        let queue = try QueueProbe()
        let cache = try Self.cacheFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let (urls, _) = try Self.urls(20, name: "fleet-metrics")
        let host = try #require(urls.first?.host)
        let port = try freeLoopbackPort()
        let http = HTTPProbe(port: port)

        let (before, after) = try await withWorkers(
            queue: queue, cacheDirectory: cache, concurrency: 4, arguments: ["--host-rate-limit", "5", "--http-port", String(port)]
        ) { workers in
            try await http.waitUntilAnswering()
            let before = try await http.metrics()
            // When they are warmed
            let batch = try await queue.enqueue(urls)
            let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(120))
            #expect(status.completed == urls.count, "\(status)\n\(workers.logs)")
            return (before, try await http.metrics())
        }

        // Then the downloads that waited for a slot are counted under their host
        let fleet = { (samples: [HTTPProbe.Sample], name: String) in
            samples.filter { $0.name == name && $0.labels["host"] == host }.map(\.value).reduce(0, +)
        }
        #expect(fleet(before, "warmer_fleet_rate_waits_total") == 0)
        let waits = fleet(after, "warmer_fleet_rate_waits_total")
        #expect(waits >= 10, "\(after.filter { $0.name.hasPrefix("warmer_fleet_rate") })")
        #expect(fleet(after, "warmer_fleet_rate_wait_seconds_count") == waits)
    }
}
