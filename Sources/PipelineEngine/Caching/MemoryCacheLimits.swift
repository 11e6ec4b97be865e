import Foundation

/// The limits of an in-memory LRU cache (`MemoryCache`, and the image cache built on it).
///
/// Nuke's rules: a total cost limit, a count limit, an optional time to live
/// checked on read, and a per-entry limit so that one huge entry cannot evict
/// everything else.
public struct MemoryCacheLimits: Sendable, Hashable {
    /// The total cost the cache keeps its entries under, in the caller's unit
    /// (bytes for images). Values below 0 are treated as 0.
    public var costLimit: Int
    /// The number of entries the cache keeps at most. Values below 0 are treated as 0.
    public var countLimit: Int
    /// How long an entry stays valid after it is stored, or `nil` for no limit.
    /// Checked on read: an expired entry is a miss and is removed then.
    public var ttl: Duration?
    /// The fraction of `costLimit` an entry must stay under to be stored:
    /// an entry costing `entryCostLimit × costLimit` or more is not stored.
    /// Default: 0.1, Nuke's rule. Clamped to 0…1.
    public var entryCostLimit: Double

    /// Limits with the given values.
    public init(costLimit: Int, countLimit: Int = .max, ttl: Duration? = nil, entryCostLimit: Double = 0.1) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        self.ttl = ttl
        self.entryCostLimit = entryCostLimit
    }

    /// Nuke's defaults for this machine: a cost limit of 15 % of physical
    /// memory, at most 768 MiB; no count limit; no time to live; entries
    /// under 10 % of the cost limit.
    public static var serverDefault: MemoryCacheLimits {
        MemoryCacheLimits(costLimit: defaultCostLimit(physicalMemory: ProcessInfo.processInfo.physicalMemory))
    }

    /// The default cost limit for a machine with `physicalMemory` bytes:
    /// min(15 % of it, 768 MiB).
    static func defaultCostLimit(physicalMemory: UInt64) -> Int {
        let fifteenPercent = physicalMemory / 100 * 15 + physicalMemory % 100 * 15 / 100  // no overflow
        return Int(min(fifteenPercent, 768 << 20))
    }

    /// The cost an entry must stay under to be stored.
    var maximumEntryCost: Double {
        Double(max(0, costLimit)) * min(max(entryCostLimit, 0), 1)
    }
}
