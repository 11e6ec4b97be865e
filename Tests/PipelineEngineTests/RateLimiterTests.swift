import Synchronization
import Testing
import TestSupport
@testable import PipelineEngine

/// The rate limiter on a manual clock: time only moves when a test advances
/// it, so every assertion about pacing is exact and no test waits in real time.
@Suite("RateLimiter")
struct RateLimiterTests {
    // MARK: Token bucket

    @Test func tokenBucketRefillsByElapsedTimeUpToItsBurst() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(rate: 2, burst: 3, now: start)
        let burst = (0..<4).map { _ in bucket.take(at: start) }
        #expect(burst == [true, true, true, false])
        #expect(bucket.nextTokenTime == start + .milliseconds(500))
        let early = bucket.take(at: start + .milliseconds(499))
        let onTime = bucket.take(at: start + .milliseconds(500))
        #expect(!early && onTime)
        // Ten seconds later it holds its burst, not twenty tokens.
        bucket.refill(at: start + .seconds(10))
        #expect(bucket.isFull(at: start + .seconds(10)))
        #expect(bucket.tokens == 3)
    }

    @Test func tokenBucketHoldGivesNoTokenBeforeItsEndAndOneThen() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(rate: 1, burst: 5, now: start)
        bucket.hold(until: start + .seconds(3), now: start)
        #expect(bucket.isHeld(at: start + .seconds(2)))
        let during = bucket.take(at: start + .seconds(2))
        #expect(!during)
        #expect(bucket.nextTokenTime == start + .seconds(3))
        // A rate change during the hold does not shorten it.
        bucket.setRate(100, at: start + .seconds(1))
        let justBefore = bucket.take(at: start + .milliseconds(2999))
        let atTheEnd = bucket.take(at: start + .seconds(3))
        let second = bucket.take(at: start + .seconds(3))
        #expect(!justBefore && atTheEnd && !second)
    }

    // MARK: Pacing

    @Test func burstPassesAtOnceThenWaitsForRefill() async {
        let harness = Harness(RateLimiterConfiguration(global: RateLimit(requestsPerSecond: 2, burst: 3)))
        for name in ["r1", "r2", "r3", "r4"] { await harness.acquire(name) }
        #expect(harness.granted == ["r1", "r2", "r3"])
        #expect(harness.limiter.waitingCount == 1)

        await harness.advance(by: .milliseconds(499))
        #expect(harness.granted.count == 3)
        await harness.advance(by: .milliseconds(1))
        #expect(harness.granted == ["r1", "r2", "r3", "r4"])
        #expect(harness.limiter.waitingCount == 0)
        #expect(harness.limiter.nextWakeUp == nil)
    }

    @Test func capsRequestsPerSecondPerHost() async {
        // 4 req/s with a burst of 1: one at once, then one every 250 ms. (The
        // clock moves in steps that divide 250 ms, so the timer is never late.)
        let harness = Harness(RateLimiterConfiguration(perHost: RateLimit(requestsPerSecond: 4, burst: 1)))
        for index in 0..<10 { await harness.acquire("a\(index)", host: "a") }
        await harness.acquire("b0", host: "b") // another host is not held back
        var counts = [harness.granted.count]
        for _ in 1...50 {
            await harness.advance(by: .milliseconds(50))
            counts.append(harness.granted.count)
        }
        let expected = (0...50).map { step in 1 + min(10, 1 + 4 * step * 50 / 1000) }
        #expect(counts == expected)
        #expect(harness.granted.filter { $0.hasPrefix("a") } == (0..<10).map { "a\($0)" })
    }

    @Test func hostsHaveIndependentBuckets() async {
        let harness = Harness(RateLimiterConfiguration(perHost: RateLimit(requestsPerSecond: 1, burst: 2)))
        for name in ["a1", "a2", "a3", "b1", "b2", "b3"] { await harness.acquire(name, host: String(name.first!)) }
        // Host a's empty bucket does not hold back host b.
        #expect(harness.granted == ["a1", "a2", "b1", "b2"])
        await harness.advance(by: .seconds(1))
        #expect(Set(harness.granted) == ["a1", "a2", "a3", "b1", "b2", "b3"])
    }

    @Test func globalBucketCapsAllHosts() async {
        let harness = Harness(RateLimiterConfiguration(
            global: RateLimit(requestsPerSecond: 2, burst: 2), perHost: RateLimit(requestsPerSecond: 10, burst: 10)
        ))
        for name in ["a1", "b1", "a2", "b2", "c1"] { await harness.acquire(name, host: String(name.first!)) }
        #expect(harness.granted == ["a1", "b1"])
        await harness.advance(by: .milliseconds(500))
        #expect(harness.granted == ["a1", "b1", "a2"])
        await harness.advance(by: .milliseconds(500))
        #expect(harness.granted == ["a1", "b1", "a2", "b2"])
        #expect(harness.limiter.waitingCount == 1)
    }

    // MARK: Priority

    @Test func servesHigherPriorityFirst() async {
        let harness = Harness(RateLimiterConfiguration(global: RateLimit(requestsPerSecond: 1, burst: 1)))
        await harness.acquire("first")
        for name in ["low1", "low2", "low3"] { await harness.acquire(name, priority: .low) }
        await harness.acquire("high", priority: .high)
        #expect(harness.granted == ["first"])

        await harness.advance(by: .seconds(1))
        #expect(harness.granted == ["first", "high"])
        await harness.advance(by: .seconds(1))
        #expect(harness.granted == ["first", "high", "low1"])
        await harness.advance(by: .seconds(1))
        #expect(harness.granted == ["first", "high", "low1", "low2"])
    }

    @Test func letsOtherHostsPassABlockedHostWithoutOvertakingWithinIt() async {
        let harness = Harness(RateLimiterConfiguration(
            global: RateLimit(requestsPerSecond: 10, burst: 10), perHost: RateLimit(requestsPerSecond: 1, burst: 1)
        ))
        await harness.acquire("a0", host: "a")
        await harness.acquire("a-high", host: "a", priority: .high)
        await harness.acquire("a-low", host: "a", priority: .low)
        // b needs none of host a's tokens: the higher waiters for a do not hold it back.
        await harness.acquire("b-veryLow", host: "b", priority: .veryLow)
        #expect(harness.granted == ["a0", "b-veryLow"])

        await harness.advance(by: .seconds(1))
        #expect(harness.granted == ["a0", "b-veryLow", "a-high"])
        await harness.advance(by: .seconds(1))
        #expect(harness.granted == ["a0", "b-veryLow", "a-high", "a-low"])
    }

    @Test func honoursAPriorityRaisedWhileWaiting() async {
        let harness = Harness(RateLimiterConfiguration(global: RateLimit(requestsPerSecond: 1, burst: 1)))
        let raised = PriorityBox(.low)
        await harness.acquire("first")
        await harness.acquire("normal1")
        await harness.acquire("normal2")
        await harness.acquire("raised", priority: raised.read)

        await harness.advance(by: .seconds(1))
        #expect(harness.granted == ["first", "normal1"])
        raised.set(.veryHigh)
        await harness.advance(by: .seconds(1))
        #expect(harness.granted == ["first", "normal1", "raised"])
    }

    // MARK: Cancellation

    @Test func cancelledWaiterThrowsAndTheNextWaiterGetsTheToken() async {
        let harness = Harness(RateLimiterConfiguration(global: RateLimit(requestsPerSecond: 1, burst: 1)))
        await harness.acquire("first")
        await harness.acquire("w1")
        await harness.acquire("w2")

        harness.cancel("w1")
        #expect(await waitUntil { harness.cancelled == ["w1"] })
        #expect(harness.limiter.waitingCount == 1)
        // The one token of the next second goes to w2: w1 took none.
        await harness.advance(by: .seconds(1))
        #expect(harness.granted == ["first", "w2"])
        #expect(harness.cancelled == ["w1"])
    }

    @Test func alreadyCancelledTaskThrowsWithoutTakingAToken() async {
        let harness = Harness(RateLimiterConfiguration(global: RateLimit(requestsPerSecond: 1, burst: 1)))
        let limiter = harness.limiter
        let outcome = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await limiter.acquire(host: "a") { .normal }
                return "granted"
            } catch {
                return "cancelled"
            }
        }.value
        #expect(outcome == "cancelled")
        await harness.acquire("next")
        #expect(harness.granted == ["next"])
    }

    @Test func racingGrantsAndCancelsNeitherLoseNorRepeatTokens() async {
        // One token a second; every second the waiter next in line is cancelled while the clock moves.
        let harness = Harness(RateLimiterConfiguration(global: RateLimit(requestsPerSecond: 1, burst: 1)))
        let names = (0..<100).map { "w\($0)" }
        for name in names { await harness.acquire(name) }
        for step in 1...40 {
            // The waiter this second's token would go to.
            let done = Set(harness.granted + harness.cancelled)
            let victim = names.first { !done.contains($0) }!
            let cancelling = Task.detached { harness.cancel(victim) }
            await harness.advance(by: .seconds(1))
            await cancelling.value
            #expect(await harness.settle())
            // Exactly one grant per second, whoever won each race.
            #expect(harness.granted.count == 1 + step)
        }
        let granted = harness.granted, cancelled = harness.cancelled
        #expect(Set(granted).count == granted.count)
        #expect(Set(granted).isDisjoint(with: cancelled))
        #expect(granted.count + cancelled.count + harness.limiter.waitingCount == names.count)
    }

    // MARK: Timer

    @Test func usesOneTimerForAllWaiters() async {
        let harness = Harness(RateLimiterConfiguration(perHost: RateLimit(requestsPerSecond: 1, burst: 1)))
        for host in 0..<20 {
            await harness.acquire("h\(host)-1", host: "h\(host)")
            await harness.acquire("h\(host)-2", host: "h\(host)")
        }
        #expect(harness.granted.count == 20)
        #expect(harness.limiter.waitingCount == 20)
        #expect(await harness.settle())
        #expect(await waitUntil { harness.clock.sleeperCount == 1 })

        await harness.advance(by: .seconds(1))
        #expect(harness.granted.count == 40)
        #expect(harness.limiter.nextWakeUp == nil)
        #expect(await waitUntil { harness.clock.sleeperCount == 0 })
    }

    // MARK: Slowdown

    @Test func slowDownHalvesTheRateAndRetryAfterHoldsTheHost() async {
        let harness = Harness(RateLimiterConfiguration(perHost: RateLimit(requestsPerSecond: 4, burst: 1)))
        let limiter = harness.limiter
        limiter.slowDown(host: "a", retryAfter: nil)
        #expect(limiter.rate(ofHost: "a") == 2)
        #expect(limiter.isSlowedDown(host: "a"))
        limiter.slowDown(host: "a", retryAfter: .seconds(3))
        #expect(limiter.rate(ofHost: "a") == 1)

        await harness.acquire("a1", host: "a")
        await harness.acquire("b1", host: "b")
        #expect(harness.granted == ["b1"]) // b is not slowed down
        await harness.advance(by: .milliseconds(2999))
        #expect(harness.granted == ["b1"])
        await harness.advance(by: .milliseconds(1))
        #expect(harness.granted == ["b1", "a1"])
        // After the hold, host a refills at its slowed rate: one a second.
        await harness.acquire("a2", host: "a")
        await harness.advance(by: .milliseconds(999))
        #expect(harness.granted == ["b1", "a1"])
        await harness.advance(by: .milliseconds(1))
        #expect(harness.granted == ["b1", "a1", "a2"])
        // Never below the minimum rate.
        for _ in 0..<10 { limiter.slowDown(host: "a", retryAfter: nil) }
        #expect(limiter.rate(ofHost: "a") == 0.5)
    }

    @Test func recordSuccessRecoversStepByStep() async {
        let harness = Harness(RateLimiterConfiguration(perHost: RateLimit(requestsPerSecond: 4, burst: 1)))
        let limiter = harness.limiter
        limiter.slowDown(host: "a", retryAfter: nil)
        #expect(limiter.rate(ofHost: "a") == 2)
        // A success with no token granted since the slowdown was in flight before it: it does not count.
        limiter.recordSuccess(host: "a")
        #expect(limiter.rate(ofHost: "a") == 2)

        var rates: [Double] = []
        for index in 0..<5 {
            await harness.acquire("a\(index)", host: "a")
            await harness.advance(by: .seconds(1))
            #expect(harness.granted.count == index + 1)
            limiter.recordSuccess(host: "a")
            rates.append(limiter.rate(ofHost: "a") ?? 0)
        }
        let expected: [Double] = [2.4, 2.8, 3.2, 3.6, 4.0] // + 10 % of 4 req/s each, capped at 4
        #expect(zip(rates, expected).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(!limiter.isSlowedDown(host: "a"))
        #expect(limiter.rate(ofHost: "a") == 4)
    }

    @Test func slowingAnUnlimitedHostLimitsItUntilItRecovers() async {
        let harness = Harness(RateLimiterConfiguration())
        let limiter = harness.limiter
        limiter.slowDown(host: "a", retryAfter: nil)
        #expect(limiter.rate(ofHost: "a") == 5) // half of the assumed 10 req/s
        await harness.acquire("a0", host: "a")
        await harness.acquire("b0", host: "b")
        #expect(harness.granted == ["b0"])
        await harness.advance(by: .milliseconds(200))
        #expect(harness.granted == ["b0", "a0"])
        limiter.recordSuccess(host: "a")
        #expect(limiter.rate(ofHost: "a") == 6) // + 10 % of 10 req/s

        for index in 1...4 {
            await harness.advance(by: .seconds(1))
            await harness.acquire("a\(index)", host: "a")
            limiter.recordSuccess(host: "a")
        }
        // Back at 10 req/s: the bucket is gone, and host a is unlimited again.
        #expect(limiter.rate(ofHost: "a") == nil)
        #expect(limiter.hostCount == 0)
        for index in 5..<50 { await harness.acquire("a\(index)", host: "a") }
        #expect(harness.granted.count == 51)
        #expect(limiter.nextWakeUp == nil)
    }

    // MARK: Unlimited and memory

    @Test func unlimitedConfigurationNeverSuspends() async {
        let clock = ManualClock()
        let limiter = RateLimiter(configuration: RateLimiterConfiguration(), clock: clock)
        #expect(limiter.configuration.isUnlimited)
        let done = Atomic<Int>(0)
        let task = Task {
            for index in 0..<1000 {
                try? await limiter.acquire(host: "h\(index % 7)") { .normal }
                limiter.recordSuccess(host: "h\(index % 7)")
                done.add(1, ordering: .sequentiallyConsistent)
            }
        }
        // The clock never moves: any wait for a token would stall here.
        #expect(await waitUntil { done.load(ordering: .sequentiallyConsistent) == 1000 })
        await task.value
        #expect(clock.nowReads == 0) // the fast path does not even read the clock
        #expect(clock.sleeperCount == 0)
        #expect(limiter.hostCount == 0)
        #expect(limiter.nextWakeUp == nil)
    }

    @Test func dropsIdleHostsButKeepsBusyOnes() async throws {
        let harness = Harness(RateLimiterConfiguration(perHost: RateLimit(requestsPerSecond: 10, burst: 1)))
        let limiter = harness.limiter
        for index in 0..<1500 { try await limiter.acquire(host: "old\(index)") { .normal } }
        limiter.slowDown(host: "old0", retryAfter: nil)
        #expect(limiter.hostCount == 1500) // all busy: their buckets are empty
        // A second later the old buckets are full again, hence idle; the new ones are busy.
        harness.clock.advance(by: .seconds(1))
        for index in 0..<1500 { try await limiter.acquire(host: "new\(index)") { .normal } }
        // Without sweeping there would be 3000; the slowed-down host stays.
        #expect(limiter.hostCount == 1501)
        #expect(limiter.rate(ofHost: "old0") == 5)
        #expect(limiter.rate(ofHost: "old1") == nil)
        #expect(limiter.rate(ofHost: "new1499") == 10)
    }
}
