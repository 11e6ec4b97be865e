import Foundation

/// One pass of the disk cache's LRU sweep.
///
/// When the folder holds more than `sizeLimit` bytes, removes the least
/// recently used files (oldest modification date first, which `DataCache`
/// refreshes on every read) until at most `targetSize` bytes remain.
/// Temporary files older than an hour — left by a crash mid-write — are
/// removed whatever the size.
struct DataCacheSweep {
    let directory: URL
    let sizeLimit: Int
    let targetSize: Int

    struct Entry {
        let url: URL
        let size: Int
        let accessDate: Date
        let isTemporary: Bool
    }

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
