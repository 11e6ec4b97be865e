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

    static func entries(in directory: URL) -> [Entry] {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        let urls = (try? FileManager.default.contentsOfDirectory(
            at: directory, includingPropertiesForKeys: keys, options: []
        )) ?? []
        return urls.compactMap { url in
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { return nil }
            return Entry(
                url: url,
                size: values.fileSize ?? 0,
                accessDate: values.contentModificationDate ?? .distantPast,
                isTemporary: url.lastPathComponent.hasPrefix(DataCache.temporaryPrefix)
            )
        }
    }
}
