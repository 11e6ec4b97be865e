import Synchronization

/// A thread-safe in-memory LRU cache with cost and count limits and an
/// optional time to live, following Nuke's `Cache`.
///
/// - **Limits** (`MemoryCacheLimits`): after each `set`, the least recently
///   used entries are evicted until the total cost is at most `costLimit` and
///   the count at most `countLimit`. An entry whose cost is `entryCostLimit`
///   (10 %) of `costLimit` or more is not stored.
/// - **Recency.** `value(forKey:)` and `set` make an entry the most recently
///   used; `removeValue`, `totalCost`, `totalCount` and `keys` do not.
/// - **Time to live** is checked on read: an expired entry is a miss and is
///   removed then (until read, it counts in the totals and is evicted as
///   usual when least recently used).
/// - **Cost** is in the caller's unit (bytes for images); a negative cost counts as 0.
///
/// Every operation is O(1) (`removeAll`, `keys` and trimming are linear in
/// the entries they touch), under one `Mutex`. Evicted and replaced values
/// are released after the lock is dropped, so a costly `deinit` never blocks
/// other threads.
final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The cache's limits.
    typealias Configuration = MemoryCacheLimits

    /// The limits this cache keeps.
    let configuration: Configuration

    private let list = Mutex(LRUList<Key, Value>())
    /// The current time, as an offset from a fixed origin of the cache's clock.
    private let now: @Sendable () -> Duration

    /// A cache keeping `configuration`, whose times to live run on `clock`.
    ///
    /// - Parameter clock: the time source for TTLs. Default: `ContinuousClock`
    ///   (monotonic, counting time while the machine sleeps).
    convenience init<C: Clock>(configuration: Configuration, clock: C = ContinuousClock())
    where C.Duration == Swift.Duration {
        let origin = clock.now
        self.init(configuration: configuration, now: { origin.duration(to: clock.now) })
    }

    /// A cache keeping `configuration`, reading the time from `now`: the time
    /// elapsed since any fixed origin, never decreasing. Tests pass a manual clock.
    init(configuration: Configuration, now: @escaping @Sendable () -> Duration) {
        self.configuration = configuration
        self.now = now
    }

    // MARK: Reading

    /// The value stored for `key`, or `nil` when absent or expired (an expired
    /// entry is removed). Makes the entry the most recently used.
    func value(forKey key: Key) -> Value? {
        let (value, expired) = list.withLock { list -> (Value?, Value?) in
            guard let slot = list.slot(forKey: key) else { return (nil, nil) }
            let entry = list.entry(at: slot)
            if let expiration = entry.expiration, now() >= expiration {
                return (nil, list.remove(at: slot).value)
            }
            list.markUsed(slot)
            return (entry.value, nil)
        }
        _ = expired  // released here, outside the lock
        return value
    }

    /// The sum of the entries' costs, expired entries not yet read included.
    var totalCost: Int {
        list.withLock { $0.totalCost }
    }

    /// The number of entries, expired entries not yet read included.
    var totalCount: Int {
        list.withLock { $0.count }
    }

    /// The keys, most recently used first; expired entries not yet read included.
    var keys: [Key] {
        list.withLock { $0.keysNewestFirst }
    }

    // MARK: Writing

    /// Stores `value` for `key` as the most recently used entry, replacing any
    /// previous value, then evicts the least recently used entries until both
    /// limits hold.
    ///
    /// An entry costing `entryCostLimit × costLimit` or more is not stored; the
    /// previous value for `key` is removed all the same, so a read never
    /// returns a value older than the last one set.
    ///
    /// - Parameters:
    ///   - cost: the entry's cost, in the unit of `costLimit`.
    ///   - ttl: how long the entry stays valid; `nil` for the configuration's `ttl`.
    func set(_ value: Value, forKey key: Key, cost: Int = 0, ttl: Duration? = nil) {
        let cost = max(0, cost)
        let isStored = Double(cost) < configuration.maximumEntryCost
        let expiration = isStored ? (ttl ?? configuration.ttl).map { now() + $0 } : nil
        let released = list.withLock { list -> [Value] in
            var released = [Value]()
            if let slot = list.slot(forKey: key) {
                released.append(list.remove(at: slot).value)
            }
            guard isStored else { return released }
            list.insert(value, forKey: key, cost: cost, expiration: expiration)
            Self.evict(from: &list, toCost: configuration.costLimit, count: configuration.countLimit, into: &released)
            return released
        }
        _ = released  // released here, outside the lock
    }

    /// Removes `key`'s entry and returns its value, or `nil` when absent
    /// (an expired entry is removed and `nil` returned).
    @discardableResult
    func removeValue(forKey key: Key) -> Value? {
        let entry = list.withLock { list -> LRUList<Key, Value>.Entry? in
            list.slot(forKey: key).map { list.remove(at: $0) }
        }
        guard let entry else { return nil }
        if let expiration = entry.expiration, now() >= expiration { return nil }
        return entry.value
    }

    /// Removes every entry.
    func removeAll() {
        let released = list.withLock { list -> LRUList<Key, Value> in
            var released = LRUList<Key, Value>()
            swap(&released, &list)
            return released
        }
        _ = released  // released here, outside the lock
    }

    /// Evicts the least recently used entries until the total cost is at most `cost`.
    func trim(toCost cost: Int) {
        trim(toCost: cost, count: .max)
    }

    /// Evicts the least recently used entries until at most `count` remain.
    func trim(toCount count: Int) {
        trim(toCost: .max, count: count)
    }

    // MARK: Private

    /// Evicts the least recently used entries until both bounds hold.
    private func trim(toCost cost: Int, count: Int) {
        let released = list.withLock { list -> [Value] in
            var released = [Value]()
            Self.evict(from: &list, toCost: cost, count: count, into: &released)
            return released
        }
        _ = released  // released here, outside the lock
    }

    /// Removes the least recently used entries of `list` until its total cost
    /// is at most `cost` and its count at most `count`, adding their values to `released`.
    private static func evict(from list: inout LRUList<Key, Value>, toCost cost: Int, count: Int, into released: inout [Value]) {
        while list.totalCost > max(0, cost) || list.count > max(0, count), let entry = list.removeOldest() {
            released.append(entry.value)
        }
    }
}
