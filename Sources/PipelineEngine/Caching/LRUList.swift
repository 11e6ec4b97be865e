/// The storage of `MemoryCache`: a doubly linked list of entries in recency
/// order, plus a dictionary from key to the entry's slot.
///
/// The list lives in one array of slots linked by index, not in a class per
/// node, so inserting and evicting allocate nothing once the array has grown
/// (freed slots are reused) and cause no reference-count traffic on nodes.
/// Every operation is O(1) except `removeAll` and `keysNewestFirst`.
///
/// Not thread-safe: `MemoryCache` guards it with a mutex.
struct LRUList<Key: Hashable, Value> {
    /// One cached value and its place in the recency order.
    struct Entry {
        /// The entry's key, kept to remove it from the index on eviction.
        var key: Key
        /// The cached value.
        var value: Value
        /// The entry's cost, counted in `totalCost`.
        var cost: Int
        /// When the entry expires, on the cache's clock; `nil` for never.
        var expiration: Duration?
        /// The slot of the next more recently used entry, or `LRUList.none`.
        var newer: Int
        /// The slot of the next less recently used entry, or `LRUList.none`.
        var older: Int
    }

    /// The "no slot" link.
    static var none: Int { -1 }

    /// Entries by slot; `nil` for a free slot.
    private var slots: [Entry?] = []
    /// Free slots, reused before the array grows.
    private var freeSlots: [Int] = []
    /// The slot of each key's entry.
    private var index: [Key: Int] = [:]
    /// The most recently used entry's slot, or `none`.
    private var newest = LRUList.none
    /// The least recently used entry's slot, or `none`.
    private var oldest = LRUList.none

    /// The sum of the entries' costs.
    private(set) var totalCost = 0

    /// The number of entries.
    var count: Int { index.count }

    /// An empty list.
    init() {}

    /// The slot of `key`'s entry, or `nil`.
    func slot(forKey key: Key) -> Int? {
        index[key]
    }

    /// The entry in `slot`, which must hold one.
    func entry(at slot: Int) -> Entry {
        slots[slot]!
    }

    /// Adds an entry for `key`, which must be absent, as the most recently used.
    mutating func insert(_ value: Value, forKey key: Key, cost: Int, expiration: Duration?) {
        let entry = Entry(key: key, value: value, cost: cost, expiration: expiration, newer: Self.none, older: Self.none)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = entry
        } else {
            slot = slots.count
            slots.append(entry)
        }
        index[key] = slot
        totalCost += cost
        linkAsNewest(slot)
    }

    /// Makes the entry in `slot` the most recently used.
    mutating func markUsed(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    /// Removes the entry in `slot` and returns it.
    @discardableResult
    mutating func remove(at slot: Int) -> Entry {
        unlink(slot)
        let entry = slots[slot].take()!
        freeSlots.append(slot)
        index[entry.key] = nil
        totalCost -= entry.cost
        return entry
    }

    /// Removes the least recently used entry and returns it, or `nil` when empty.
    mutating func removeOldest() -> Entry? {
        oldest == Self.none ? nil : remove(at: oldest)
    }

    /// Removes every entry and releases the storage.
    mutating func removeAll() {
        self = LRUList()
    }

    /// The keys, most recently used first.
    var keysNewestFirst: [Key] {
        var keys = [Key]()
        keys.reserveCapacity(count)
        var slot = newest
        while slot != Self.none {
            keys.append(slots[slot]!.key)
            slot = slots[slot]!.older
        }
        return keys
    }

    // MARK: Links

    /// Puts the unlinked entry in `slot` at the newest end.
    private mutating func linkAsNewest(_ slot: Int) {
        slots[slot]!.newer = Self.none
        slots[slot]!.older = newest
        if newest != Self.none { slots[newest]!.newer = slot }
        newest = slot
        if oldest == Self.none { oldest = slot }
    }

    /// Takes the entry in `slot` out of the recency order, joining its neighbours.
    private mutating func unlink(_ slot: Int) {
        let newer = slots[slot]!.newer
        let older = slots[slot]!.older
        if newer != Self.none { slots[newer]!.older = older } else { newest = older }
        if older != Self.none { slots[older]!.newer = newer } else { oldest = newer }
        slots[slot]!.newer = Self.none
        slots[slot]!.older = Self.none
    }
}

extension LRUList: Sendable where Key: Sendable, Value: Sendable {}
extension LRUList.Entry: Sendable where Key: Sendable, Value: Sendable {}
