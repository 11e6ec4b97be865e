import Foundation

/// One pass of the disk cache's LRU sweep.
///
/// When the folder holds more than `sizeLimit` bytes, removes the least
/// recently used files (oldest modification date first, which `DataCache`
/// refreshes on every read) until at most `targetSize` bytes remain.
/// Temporary files older than an hour — left by a crash mid-write — are
/// removed whatever the size.
struct DataCacheSweep {
    /// The cache's folder.
    let directory: URL
    /// The sweep does nothing while the entries total at most this many bytes.
    let sizeLimit: Int
    /// The total, in bytes, the sweep trims the entries down to.
    let targetSize: Int

    /// A file in the cache's folder.
    struct Entry {
        /// The file.
        let url: URL
        /// Its size in bytes.
        let size: Int
        /// Its modification date: the entry's last access.
        let accessDate: Date
        /// Whether it is a temporary file of a write in progress (or of a crash).
        let isTemporary: Bool
    }

    /// Removes stale temporary files, then, when the entries exceed
    /// `sizeLimit`, the least recently used ones until `targetSize` is reached.
    func run() {
        var entries = Self.entries(in: directory)
        let staleTemporaryDate = Date(timeIntervalSinceNow: -3600)
        for entry in entries where entry.isTemporary && entry.accessDate < staleTemporaryDate {
            try? FileManager.default.removeItem(at: entry.url)
        }
        entries.removeAll { $0.isTemporary }

        var total = entries.reduce(0) { $0 + $1.size }
        guard total > sizeLimit else { return }
        for entry in entries.sorted(by: { $0.accessDate < $1.accessDate }) {
            guard total > targetSize else { break }
            if (try? FileManager.default.removeItem(at: entry.url)) != nil {
                total -= entry.size
            }
        }
    }

    /// The regular files in `directory`, with sizes and nanosecond access
    /// dates read by `stat` (Foundation's resource values round to seconds on
    /// Linux, which would make the LRU order arbitrary within a second).
    static func entries(in directory: URL) -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap { name in
            let url = directory.appendingPathComponent(name, isDirectory: false)
            var status = stat()
            guard stat(url.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
            let modified = Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
            return Entry(url: url, size: Int(status.st_size), accessDate: modified,
                         isTemporary: name.hasPrefix(DataCache.temporaryPrefix))
        }
    }
}

extension DataCacheSweep {
    /// `interval` in whole milliseconds for Dispatch, at least 1 ms, saturating
    /// (`.seconds(.max)` means "practically never", not an overflow trap).
    static func dispatchInterval(_ interval: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = interval.components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return .milliseconds(.max) }
        let (total, overflowAgain) = milliseconds.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return .milliseconds(overflowAgain ? .max : max(1, Int(clamping: total)))
    }
}
