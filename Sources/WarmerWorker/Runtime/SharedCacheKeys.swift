/// The Redis keys of one shared cache folder, named after its identity
/// (`CacheFolderIdentity`), not after a queue: workers of several queues
/// may share the folder. Both keys share the hash tag `{ID}`, so they live
/// in one slot of a Redis Cluster.
///
/// | key | type | holds |
/// |---|---|---|
/// | `warmer:cache:{ID}:sweeper` | string, with expiry | the id of the worker elected to sweep the folder |
/// | `warmer:cache:{ID}:reads` | sorted set | entries `warmer serve` read (member: file name, score: time in ms), at most `readsCapacity` |
package struct SharedCacheKeys: Sendable {
    /// The sweeper's lease.
    let sweeper: String
    /// The reads waiting to be applied by the sweeper.
    let reads: String
    /// The most reads kept; past that the oldest are dropped (their entries
    /// may then be evicted as if unread).
    static let readsCapacity = 100_000

    /// The keys of the folder whose id is `folderID`.
    package init(folderID: String) {
        sweeper = "warmer:cache:{\(folderID)}:sweeper"
        reads = "warmer:cache:{\(folderID)}:reads"
    }
}
