import Testing
@testable import PipelineEngine

/// Per-host overrides (`--host-rate-limit-override HOST=N`) in the process's
/// own limiter, on the manual clock of `Harness`.
@Suite struct RateLimiterOverrideTests {
    @Test func aHostWithAnOverrideGetsItsOwnRateInsteadOfThePerHostOne() async {
        var configuration = RateLimiterConfiguration(perHost: RateLimit(requestsPerSecond: 1, burst: 1))
        configuration.hostOverrides = ["fast": RateLimit(requestsPerSecond: 100, burst: 5)]
        let harness = Harness(configuration)
        for index in 0..<5 { await harness.acquire("f\(index)", host: "fast") }
        for index in 0..<3 { await harness.acquire("s\(index)", host: "slow") }
        // The override's burst of five passes at once; the other host gets its one
        #expect(harness.granted.filter { $0.hasPrefix("f") }.count == 5)
        #expect(harness.granted.filter { $0.hasPrefix("s") } == ["s0"])
        await harness.advance(by: .seconds(1))
        #expect(harness.granted.filter { $0.hasPrefix("s") } == ["s0", "s1"])
    }

    @Test func overridesAloneLimitOnlyTheirHosts() async {
        var configuration = RateLimiterConfiguration()
        configuration.hostOverrides = ["slow": RateLimit(requestsPerSecond: 1, burst: 1)]
        #expect(!configuration.isUnlimited)
        let harness = Harness(configuration)
        for index in 0..<3 { await harness.acquire("o\(index)", host: "other") }
        for index in 0..<2 { await harness.acquire("s\(index)", host: "slow") }
        #expect(Set(harness.granted) == ["o0", "o1", "o2", "s0"])
        #expect(harness.limiter.waitingCount == 1)
    }
}
