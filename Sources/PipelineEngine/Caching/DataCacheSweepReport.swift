/// What one sweep of the disk cache found and did.
public struct DataCacheSweepReport: Sendable, Equatable {
    /// The entries' files (data, metadata, partial downloads) before eviction.
    public var files = 0
    /// Their total size in bytes, before eviction.
    public var bytes = 0
    /// Entries removed to bring the total under the trimmed limit.
    public var evicted = 0
    /// Files of the flat layout moved into their shards.
    public var migrated = 0

    /// An empty report.
    public init() {}
}
