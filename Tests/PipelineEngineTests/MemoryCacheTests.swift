import Synchronization
import Testing
@testable import PipelineEngine

@Suite("MemoryCache")
struct MemoryCacheTests {
    /// A clock the test moves by hand, so TTL tests never sleep.
    final class ManualTime: Sendable {
        private let elapsed = Mutex(Duration.zero)
        /// The cache's time source.
        var now: @Sendable () -> Duration { { self.elapsed.withLock { $0 } } }
        /// Moves the time forward.
        func advance(by duration: Duration) { elapsed.withLock { $0 += duration } }
    }

    /// A cache of strings with the given limits on a manual clock.
    func makeCache(
        costLimit: Int = 1000, countLimit: Int = .max, ttl: Duration? = nil, time: ManualTime = ManualTime()
    ) -> MemoryCache<String, String> {
        MemoryCache(configuration: MemoryCacheLimits(costLimit: costLimit, countLimit: countLimit, ttl: ttl), now: time.now)
    }

    @Test func evictsLeastRecentlyUsedFirst() {
        // Given: a, b, c, then a read of a, which makes b the least recently used.
        let cache = makeCache(countLimit: 3)
        for key in ["a", "b", "c"] { cache.set(key.uppercased(), forKey: key) }
        #expect(cache.value(forKey: "a") == "A")
        // When
        cache.set("D", forKey: "d")
        // Then
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.keys == ["d", "a", "c"])
    }

    @Test func respectsCostLimit() {
        // Given: a limit of 100 and entries of cost 9 (under the 10 % entry limit).
        let cache = makeCache(costLimit: 100)
        // When: 12 × 9 = 108 is stored.
        for index in 0..<12 { cache.set("v\(index)", forKey: "k\(index)", cost: 9) }
        // Then: the oldest entry went, 11 × 9 = 99 remains.
        #expect(cache.totalCost == 99)
        #expect(cache.totalCount == 11)
        #expect(cache.value(forKey: "k0") == nil)
        #expect(cache.value(forKey: "k1") == "v1")
    }

    @Test func respectsCountLimit() {
        let cache = makeCache(countLimit: 2)
        for index in 0..<5 { cache.set("v\(index)", forKey: "k\(index)", cost: 1) }
        #expect(cache.totalCount == 2)
        #expect(cache.totalCost == 2)
        #expect(cache.keys == ["k4", "k3"])
    }

    @Test func expiredEntryIsAMiss() {
        // Given: a 10 s TTL.
        let time = ManualTime()
        let cache = makeCache(ttl: .seconds(10), time: time)
        cache.set("v", forKey: "k", cost: 5)
        // Then: still valid just before it expires…
        time.advance(by: .seconds(9))
        #expect(cache.value(forKey: "k") == "v")
        // …a miss once expired, and removed by that read.
        time.advance(by: .seconds(1))
        #expect(cache.value(forKey: "k") == nil)
        #expect(cache.totalCount == 0)
        #expect(cache.totalCost == 0)
    }

    @Test func entryTTLOverridesTheConfiguration() {
        let time = ManualTime()
        let cache = makeCache(ttl: .seconds(10), time: time)
        cache.set("short", forKey: "short", ttl: .seconds(1))
        cache.set("long", forKey: "long", ttl: .seconds(60))
        time.advance(by: .seconds(30))
        #expect(cache.value(forKey: "short") == nil)
        #expect(cache.value(forKey: "long") == "long")
    }

    @Test func zeroTTLOnTheRealClockExpiresAtOnce() {
        // The clock-based initializer: a monotonic clock never goes back, so a
        // TTL of zero has always run out by the next read.
        let cache = MemoryCache<String, Int>(configuration: MemoryCacheLimits(costLimit: 100, ttl: .zero))
        cache.set(1, forKey: "k")
        #expect(cache.totalCount == 1)
        #expect(cache.value(forKey: "k") == nil)
        #expect(cache.totalCount == 0)
    }

    @Test func refusesEntryCostingTenPercentOfTheLimit() {
        let cache = makeCache(costLimit: 100)
        cache.set("big", forKey: "big", cost: 10)
        cache.set("fits", forKey: "fits", cost: 9)
        #expect(cache.value(forKey: "big") == nil)
        #expect(cache.value(forKey: "fits") == "fits")
        #expect(cache.totalCost == 9)
        // A refused replacement removes the older value: reads never go back in time.
        cache.set("huge", forKey: "fits", cost: 50)
        #expect(cache.value(forKey: "fits") == nil)
        #expect(cache.totalCost == 0)
    }

    @Test func replacingAdjustsTotalCost() {
        let cache = makeCache()
        cache.set("old", forKey: "k", cost: 5)
        cache.set("other", forKey: "o", cost: 3)
        cache.set("new", forKey: "k", cost: 8)
        #expect(cache.value(forKey: "k") == "new")
        #expect(cache.totalCost == 11)
        #expect(cache.totalCount == 2)
        #expect(cache.keys == ["k", "o"])
    }

    @Test func removeValueReturnsItAndFreesItsCost() {
        let cache = makeCache()
        cache.set("v", forKey: "k", cost: 7)
        #expect(cache.removeValue(forKey: "k") == "v")
        #expect(cache.removeValue(forKey: "k") == nil)
        #expect(cache.value(forKey: "k") == nil)
        #expect(cache.totalCost == 0)
    }

    @Test func removeAllEmptiesTheCache() {
        let cache = makeCache()
        for index in 0..<10 { cache.set("v", forKey: "k\(index)", cost: 3) }
        cache.removeAll()
        #expect(cache.totalCount == 0 && cache.totalCost == 0 && cache.keys.isEmpty)
        // Still usable afterwards.
        cache.set("v", forKey: "k", cost: 3)
        #expect(cache.value(forKey: "k") == "v")
    }

    @Test func trimRemovesLeastRecentlyUsedDownToTheGivenCost() {
        let cache = makeCache()
        for index in 0..<5 { cache.set("v\(index)", forKey: "k\(index)", cost: 10) }
        _ = cache.value(forKey: "k0")
        cache.trim(toCost: 25)
        #expect(cache.totalCost == 20)
        #expect(cache.keys == ["k0", "k4"])
        cache.trim(toCount: 1)
        #expect(cache.keys == ["k0"])
    }

    @Test func serverDefaultIsFifteenPercentOfMemoryUpTo768MiB() {
        #expect(MemoryCacheLimits.defaultCostLimit(physicalMemory: 1 << 30) == (1 << 30) * 15 / 100)
        #expect(MemoryCacheLimits.defaultCostLimit(physicalMemory: 64 << 30) == 768 << 20)
        #expect(MemoryCacheLimits.defaultCostLimit(physicalMemory: .max) == 768 << 20)
        let limits = MemoryCacheLimits.serverDefault
        #expect(limits.costLimit > 0 && limits.costLimit <= 768 << 20)
        #expect(limits.countLimit == .max && limits.ttl == nil && limits.entryCostLimit == 0.1)
    }

    @Test func matchesAReferenceModelUnderRandomOperations() {
        // A plain array LRU as the model; a seeded generator makes failures reproducible.
        let cache = MemoryCache<Int, Int>(configuration: MemoryCacheLimits(costLimit: 200, countLimit: 12), now: { .zero })
        var model: [(key: Int, value: Int, cost: Int)] = []  // most recent first
        var random = SplitMix64(seed: 42)
        for step in 0..<20_000 {
            let key = Int(random.next() % 24)
            switch random.next() % 4 {
            case 0:
                let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0) }
                if let expected { model.insert(expected, at: 0) }
                #expect(cache.value(forKey: key) == expected?.value, "step \(step)")
            case 1:
                let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0).value }
                #expect(cache.removeValue(forKey: key) == expected, "step \(step)")
            default:
                let cost = Int(random.next() % 25)  // 20 or more is refused
                model.removeAll { $0.key == key }
                cache.set(step, forKey: key, cost: cost)
                if cost < 20 { model.insert((key, step, cost), at: 0) }
                while model.count > 12 || model.reduce(0, { $0 + $1.cost }) > 200 { model.removeLast() }
            }
            guard cache.keys == model.map(\.key), cache.totalCost == model.reduce(0, { $0 + $1.cost }) else {
                Issue.record("diverged from the model at step \(step)")
                return
            }
        }
    }

    @Test func concurrentAccessKeepsTotalsConsistent() async {
        // Each key has a fixed cost and each value names its key, so totals
        // and contents can be checked after a storm of concurrent operations.
        let cache = MemoryCache<Int, Int>(configuration: MemoryCacheLimits(costLimit: 150, countLimit: 40))
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var mismatches = 0  // values read under a key they were not stored for
                    var random = SplitMix64(seed: UInt64(worker))
                    for _ in 0..<5_000 {
                        let key = Int(random.next() % 64)
                        switch random.next() % 3 {
                        case 0: cache.set(key * 1000 + worker, forKey: key, cost: Self.cost(of: key))
                        case 1:
                            if let value = cache.value(forKey: key), value / 1000 != key {
                                mismatches += 1
                            }
                        default: cache.removeValue(forKey: key)
                        }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        let keys = cache.keys
        #expect(mismatches == 0)
        #expect(!keys.isEmpty)
        #expect(Set(keys).count == keys.count)
        #expect(cache.totalCount == keys.count)
        #expect(cache.totalCost == keys.reduce(0) { $0 + Self.cost(of: $1) })
        #expect(cache.totalCost <= 150 && cache.totalCount <= 40)
        for key in keys {
            #expect(cache.value(forKey: key).map { value in value / 1000 } == key)
        }
    }

    /// The fixed cost of `key` in `concurrentAccessKeepsTotalsConsistent`.
    static func cost(of key: Int) -> Int { key % 7 + 1 }
}

/// A small seeded random number generator (SplitMix64), for reproducible tests.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    /// A generator starting from `seed`.
    init(seed: UInt64) { state = seed }
    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
