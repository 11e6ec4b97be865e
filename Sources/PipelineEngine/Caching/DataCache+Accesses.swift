import Foundation

/// What counts as an access for the LRU: the cache's own reads, reads made
/// outside it (`warmer serve`), and accesses another process recorded.
extension DataCache {
    /// Counts a read of the file `filename` at `path` as an access: refreshes
    /// its modification date, or records it with the `accessRecorder`.
    func recordAccess(_ filename: String, at path: String) {
        if let accessRecorder {
            accessRecorder.recordAccess(toEntryNamed: filename)
        } else {
            CacheFile.touch(path)
        }
    }

    /// Counts a read of the data file at `url` (as `url(for:)` or
    /// `fileURL(for:)` gave it) made outside the cache, as `warmer serve`
    /// reads a file it sends, when its date `lastAccess` is older than
    /// `interval`: a file read often is recorded once per interval, and its
    /// date (a `Last-Modified`) stays the same in between. Returns whether
    /// it counted the read.
    @discardableResult
    public func recordRead(ofFileAt url: URL, lastAccess: Date, atMostEvery interval: TimeInterval) -> Bool {
        guard Date().timeIntervalSince(lastAccess) > interval else { return false }
        recordAccess(url.lastPathComponent, at: url.path)
        return true
    }

    /// Applies an access recorded by another process (`DataCacheAccessRecording`):
    /// refreshes the date of the entry `filename`'s data, wherever it is.
    /// Does nothing when the entry is gone.
    public func applyRecordedAccess(toEntryNamed filename: String) {
        guard DataCacheLayout.shard(of: filename) != nil, let path = existingPath(of: filename) else { return }
        CacheFile.touch(path)
    }
}
