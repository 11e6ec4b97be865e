import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// The rate limiter seen from the origin: when requests arrive (the fault
/// origin logs each request's arrival time). Only lower bounds on time are
/// asserted: a loaded machine can be slower, never faster, than the limit.
/// The order of waiters is shown on a manual clock, which gives the token
/// only once every request waits.
@Suite("Rate limiter against the origin")
struct RateLimiterOriginTests {
    /// The names of `count` corpus files of the origin (img-0001.jpg…).
    func corpusNames(_ count: Int) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: TestEnvironment.originRoot().path)
            .filter { $0.hasPrefix("img-") }.sorted()
        try #require(names.count >= count)
        return Array(names.prefix(count))
    }

    func pipeline(_ rateLimit: RateLimiterConfiguration) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration.faultOrigin(dataCache: nil)
        configuration.rateLimit = rateLimit
        return ImagePipeline(configuration: configuration)
    }

    @Test func capsRequestsPerSecondPerHost() async throws {
        // Given: 5 requests a second per host, no burst.
        let pipeline = self.pipeline(RateLimiterConfiguration(perHost: RateLimit(requestsPerSecond: 5, burst: 1)))
        let id = TestEnvironment.uniqueName("per-host")
        let urls = try corpusNames(11).map { try FaultOrigin.url(file: $0, ["id": id]) }
        // When: 11 distinct files are prefetched at once.
        let enqueued = Date().timeIntervalSince1970
        let tasks = urls.map { pipeline.prefetchData(for: ImageRequest(url: $0)) }
        for task in tasks { _ = try await task.response }
        // Then: the first token is there at once, each of the 10 others 0.2 s
        // after the one before: the 11th request cannot arrive before 2 s
        // after the prefetches started (a lower bound: a slow machine only adds).
        let logged = try await FaultLog.requests(id: id, atLeast: 11)
        #expect(logged.count == 11)
        let arrivals = logged.map(\.ts).sorted()
        let last = try #require(arrivals.last)
        #expect(last - enqueued >= 1.95, "the 11th request arrived \(last - enqueued) s after the start")
        // ... and none early: the (n+1)th at least n × 0.2 s after the start.
        // (Lower bounds only; the pacing itself is exact in RateLimiterTests,
        // on a manual clock.)
        for (index, arrival) in arrivals.enumerated() {
            #expect(arrival - enqueued >= Double(index) * 0.2 - 0.05, "arrival \(index + 1) at \(arrival - enqueued) s")
        }
    }

    @Test func hostsAreLimitedSeparately() async throws {
        // Given: one request every 100 s per host; the fault origin reached by
        // two names (127.0.0.1 and localhost) is two hosts.
        var loaderConfiguration = DataLoader.Configuration.testOrigin
        loaderConfiguration.addressPolicy.allowedHosts.insert("localhost")
        var configuration = ImagePipeline.Configuration.faultOrigin(dataCache: nil, loader: DataLoader(configuration: loaderConfiguration))
        configuration.rateLimit = RateLimiterConfiguration(perHost: RateLimit(requestsPerSecond: 0.01, burst: 1))
        let pipeline = ImagePipeline(configuration: configuration)
        let id = TestEnvironment.uniqueName("two-hosts")
        let port = try #require(TestEnvironment.faultOriginURL().port)
        let names = try corpusNames(3)
        let firstByAddress = try FaultOrigin.url(file: names[0], ["id": id])
        let secondByAddress = try FaultOrigin.url(file: names[1], ["id": id])
        let byName = try #require(URL(string: "http://localhost:\(port)/files/\(names[2])?id=\(id)"))
        // When: the first host's token is spent, a second request for it
        // waits for the next (100 s away), and one for the second host comes
        _ = try await pipeline.prefetchData(for: ImageRequest(url: firstByAddress)).response
        let waiting = pipeline.prefetchData(for: ImageRequest(url: secondByAddress))
        defer { waiting.cancel() }
        _ = try await pipeline.prefetchData(for: ImageRequest(url: byName)).response
        // Then: the second host's request was served while the first host's
        // second one still waits (no timing: it would wait 100 s)
        let logged = try await FaultLog.requests(id: id, atLeast: 2)
        #expect(Set(logged.map(\.path)) == ["/files/" + names[0], "/files/" + names[2]], "\(logged.map(\.path))")
    }

    @Test func servesHighPriorityFirst() async throws {
        // Given: one request every 5 s per host, no burst, on a clock the
        // test moves, and the host's token spent by a first low-priority request.
        let clock = ManualClock()
        var configuration = ImagePipeline.Configuration.faultOrigin(dataCache: nil)
        configuration.rateLimit = RateLimiterConfiguration(perHost: RateLimit(requestsPerSecond: 0.2, burst: 1))
        let pipeline = ImagePipeline(configuration: configuration, rateLimiterClock: clock)
        let id = TestEnvironment.uniqueName("priority")
        let names = try corpusNames(7)
        let lowURLs = try names.prefix(6).map { try FaultOrigin.url(file: $0, ["id": id]) }
        let urgentURL = try FaultOrigin.url(file: names[6], ["id": id])
        _ = try await pipeline.prefetchData(for: ImageRequest(url: lowURLs[0], priority: .low)).response
        // When: five more low-priority requests wait for the next token, then
        // a very high one joins, and the token comes once all six wait
        let low = lowURLs.dropFirst().map { pipeline.prefetchData(for: ImageRequest(url: $0, priority: .low)) }
        let urgent = pipeline.prefetchData(for: ImageRequest(url: urgentURL, priority: .veryHigh))
        defer { for task in low + [urgent] { task.cancel() } }
        #expect(await eventually { pipeline.rateLimiter.waitingCount == 6 }, "\(pipeline.rateLimiter.waitingCount) waiting")
        clock.advance(by: .seconds(5))
        // Then: the very high one took that token: it is the second request the origin saw.
        let logged = try await FaultLog.requests(id: id, atLeast: 2)
        let order = logged.sorted { $0.ts < $1.ts }.map(\.path)
        #expect(Array(order.prefix(2)) == ["/files/" + names[0], "/files/" + names[6]], "arrival order: \(order)")
    }

    @Test func serviceUnavailableSlowsTheHostDown() async throws {
        // Given: no configured limit; the host answers one 503 (no Retry-After).
        let pipeline = self.pipeline(RateLimiterConfiguration())
        let id = TestEnvironment.uniqueName("slowdown")
        let failing = try FaultOrigin.url(file: "img-0001.jpg", ["id": id, "fail": "503"])
        // When
        _ = try await pipeline.prefetchData(for: ImageRequest(url: failing)).response
        // Then: the host is slowed down (halved to 5 req/s, then one success's
        // recovery step of 1 req/s), below the 10 req/s it recovers to.
        #expect(pipeline.rateLimiter.isSlowedDown(host: "127.0.0.1"))
        #expect((pipeline.rateLimiter.rate(ofHost: "127.0.0.1") ?? .infinity) < RateLimiterConfiguration.defaultHostRate)
        let logged = try await FaultLog.requests(id: id, atLeast: 2)
        #expect(logged.map(\.status) == [503, 200])
        // ... the retry waited for a token of the halved rate (5 req/s: 0.2 s), not just the 20 ms backoff.
        #expect(logged[1].ts - logged[0].end >= 0.15, "retried after \(logged[1].ts - logged[0].end) s")
    }
}
