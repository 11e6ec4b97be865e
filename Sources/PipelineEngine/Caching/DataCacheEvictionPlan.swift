import Foundation

/// Where a sweep's LRU eviction cuts, found in memory that does not grow
/// with the number of files: the bytes of the entries by minute of last
/// access (a histogram), gathered while the sweep counts the folder.
///
/// The entries last read before the cutoff minute are all evicted; those
/// of the cutoff minute itself are the only ones listed and sorted, so an
/// eviction at a million files holds one minute's entries, not a million
/// (listing and sorting them all took about 650 MiB; bench/README.md).
struct DataCacheEvictionPlan {
    /// The width of a histogram bucket, in seconds.
    static let bucketWidth: TimeInterval = 60
    /// Bytes of data and partial files by bucket of access date.
    private var bytesByBucket: [Int: Int] = [:]

    /// An empty plan.
    init() {}

    /// Counts `entry` (data or partial download; metadata goes with its data).
    mutating func add(_ entry: DataCacheSweep.Entry) {
        bytesByBucket[Self.bucket(of: entry.accessDate), default: 0] += entry.size
    }

    /// The oldest bucket whose entries, with every older one, total at
    /// least `excess` bytes; `nil` when all of them together do not.
    func cutoff(freeing excess: Int) -> Int? {
        var freed = 0
        for (bucket, bytes) in bytesByBucket.sorted(by: { $0.key < $1.key }) {
            freed += bytes
            if freed >= excess { return bucket }
        }
        return bytesByBucket.keys.max()
    }

    /// The bucket of an access date.
    static func bucket(of date: Date) -> Int {
        Int((date.timeIntervalSince1970 / bucketWidth).rounded(.down))
    }
}
