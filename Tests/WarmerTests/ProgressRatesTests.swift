import Testing
@testable import Warmer

/// The board's rate: jobs ended per second over the last 10 s, not since
/// the batch was first seen. The samples carry their times, so no clock runs.
@Suite struct ProgressRatesTests {
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant {
        start + .milliseconds(Int64(seconds * 1000))
    }

    @Test func theRateFollowsTheLastTenSecondsNotTheAverageSinceFirstSeen() {
        var rates = ProgressRates()
        // Given a batch that ended 100 jobs in its first 5 s, then slowed down to 1 a second
        rates.record(0, of: "b", at: at(0))
        rates.record(100, of: "b", at: at(5))
        for second in 6...20 { rates.record(100 + second - 5, of: "b", at: at(Double(second))) }

        // Then at 20 s its rate is 1/s (the average since first seen would be 5.75/s)
        #expect(rates.rate(of: "b") == 1)
    }

    @Test func aStalledBatchShowsZeroOnceItsBurstLeftTheWindow() {
        var rates = ProgressRates()
        rates.record(0, of: "b", at: at(0))
        rates.record(50, of: "b", at: at(1))
        #expect(rates.rate(of: "b") == 50)
        // Nothing ends for 12 s, sampled every half second
        for half in 3...26 { rates.record(50, of: "b", at: at(Double(half) / 2)) }
        #expect(rates.rate(of: "b") == 0)
    }

    @Test func theRateIsUnknownUntilTheSamplesSpanASecond() {
        var rates = ProgressRates()
        #expect(rates.rate(of: "b") == nil)
        rates.record(3, of: "b", at: at(0))
        #expect(rates.rate(of: "b") == nil)
        rates.record(4, of: "b", at: at(0.5))
        #expect(rates.rate(of: "b") == nil)
        rates.record(5, of: "b", at: at(1))
        #expect(rates.rate(of: "b") == 2)
    }

    @Test func batchesHaveRatesOfTheirOwnAndACounterGoingDownStartsAgain() {
        var rates = ProgressRates()
        rates.record(0, of: "fast", at: at(0))
        rates.record(0, of: "slow", at: at(0))
        rates.record(40, of: "fast", at: at(2))
        rates.record(2, of: "slow", at: at(2))
        #expect(rates.rate(of: "fast") == 20 && rates.rate(of: "slow") == 1)

        // Dead letters retried reopen a batch: fewer ended than before
        rates.record(30, of: "fast", at: at(3))
        #expect(rates.rate(of: "fast") == nil)
        rates.record(35, of: "fast", at: at(4))
        #expect(rates.rate(of: "fast") == 5)

        rates.keep(only: ["slow"])
        #expect(rates.rate(of: "fast") == nil && rates.rate(of: "slow") == 1)
    }
}
