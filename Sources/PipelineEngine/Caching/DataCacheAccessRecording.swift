/// Where a process that reads the disk cache but may not write its folder
/// (`warmer serve` on a read-only mount) records its reads, so that they
/// still count for the LRU sweep.
///
/// `DataCache` refreshes an entry's modification date on a read; given a
/// recorder it calls the recorder instead, and whoever sweeps the folder
/// applies the records (`DataCache.applyRecordedAccess(toEntryNamed:)`)
/// before it sweeps.
public protocol DataCacheAccessRecording: Sendable {
    /// Records that the entry whose file name is `filename` (its hash) was
    /// read now. Must not block: called on the read's path.
    func recordAccess(toEntryNamed filename: String)
}
