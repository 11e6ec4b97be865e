import Foundation
import WarmerSupport

/// One pass of the disk cache's LRU sweep.
///
/// When the folder holds more than `sizeLimit` bytes, removes the least
/// recently used entries (oldest modification date first, which `DataCache`
/// refreshes on every read) until at most `targetSize` bytes remain. An
/// entry's metadata file goes with its data and counts towards its size.
/// Whatever the size, it also removes leftovers: temporary files of a write
/// a crash interrupted and partial downloads nobody resumed (both after
/// `leftoverLifetime`), and metadata whose data is gone.
struct DataCacheSweep {
    /// The cache's folder.
    let directory: URL
    /// The sweep does nothing while the entries total at most this many bytes.
    let sizeLimit: Int
    /// The total, in bytes, the sweep trims the entries down to.
    let targetSize: Int
    /// How long temporary files and partial downloads are kept. Default: 1 hour.
    var leftoverLifetime: TimeInterval = 3600
    /// How old metadata without data must be before it is removed: a grace
    /// period for another process sharing the folder, which writes data first.
    var orphanGracePeriod: TimeInterval = 60

    /// A file in the cache's folder.
    struct Entry {
        /// The file.
        let url: URL
        /// Its size in bytes.
        let size: Int
        /// Its modification date: the entry's last access.
        let accessDate: Date
        /// What the file holds.
        let kind: DataCache.FileKind
        /// The file name without its kind's suffix: the entry's hash.
        let base: String
    }

    /// Removes leftovers, then, when the entries exceed `sizeLimit`, the
    /// least recently used ones until `targetSize` is reached.
    ///
    /// The first pass reads the folder one file at a time and keeps only a
    /// running total, so a sweep of a cache under its limit (every sweep
    /// but those that evict) takes no memory however many files the folder
    /// holds. Listing a 180,000-file folder into an array of entries every
    /// 30 s took about 20 MiB at each sweep and, between long-lived
    /// allocations, raised a worker's RSS with every file added (issue 23's
    /// soak). Only an eviction lists the entries, to sort them by access.
    func run() {
        let now = Date()
        var total = 0
        Self.forEachEntry(in: directory) { entry in
            guard !removeIfLeftover(entry, now: now), entry.kind != .temporary else { return }
            total += entry.size
        }
        guard total > sizeLimit else { return }
        evict(from: Self.entries(in: directory).filter { $0.kind != .temporary }, total: total)
    }

    /// Removes `entry` if it is a leftover: a temporary file or partial
    /// download older than `leftoverLifetime`, or metadata whose data is
    /// gone (after `orphanGracePeriod`). Returns whether it did.
    private func removeIfLeftover(_ entry: Entry, now: Date) -> Bool {
        let isLeftover = switch entry.kind {
        case .temporary, .partial: entry.accessDate < now - leftoverLifetime
        case .metadata:
            entry.accessDate < now - orphanGracePeriod
                && !FileManager.default.fileExists(atPath: directory.appendingPathComponent(entry.base).path)
        case .data: false
        }
        guard isLeftover else { return false }
        try? FileManager.default.removeItem(at: entry.url)
        return true
    }

    /// Removes the least recently used of `entries` (which total `total`
    /// bytes) until at most `targetSize` bytes remain; an entry's metadata
    /// goes with its data.
    private func evict(from entries: [Entry], total: Int) {
        var total = total
        let metadataSizes = Dictionary(entries.lazy.filter { $0.kind == .metadata }.map { ($0.base, $0) }) { first, _ in first }
        for entry in entries.filter({ $0.kind != .metadata }).sorted(by: { $0.accessDate < $1.accessDate }) {
            guard total > targetSize else { break }
            guard (try? FileManager.default.removeItem(at: entry.url)) != nil else { continue }
            total -= entry.size
            if entry.kind == .data, let metadata = metadataSizes[entry.base],
               (try? FileManager.default.removeItem(at: metadata.url)) != nil {
                total -= metadata.size
            }
        }
    }

    /// The regular files in `directory`, with sizes and nanosecond access
    /// dates read by `stat` (Foundation's resource values round to seconds on
    /// Linux, which would make the LRU order arbitrary within a second).
    static func entries(in directory: URL) -> [Entry] {
        var entries: [Entry] = []
        forEachEntry(in: directory) { entries.append($0) }
        return entries
    }

    /// Calls `body` with each regular file of `directory`, reading the
    /// folder as it goes (nothing but the current file is held).
    static func forEachEntry(in directory: URL, _ body: (Entry) -> Void) {
        guard let folder = opendir(directory.path) else { return }
        defer { closedir(folder) }
        while let record = readdir(folder) {
            let name = withUnsafeBytes(of: record.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            let url = directory.appendingPathComponent(name, isDirectory: false)
            var status = stat()
            guard stat(url.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            let modified = Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
            let (kind, base) = DataCache.FileKind.of(name)
            body(Entry(url: url, size: Int(status.st_size), accessDate: modified, kind: kind, base: base))
        }
    }
}

extension DataCacheSweep {
    /// `interval` in whole milliseconds for Dispatch, at least 1 ms, saturating
    /// (`.seconds(.max)` means "practically never", not an overflow trap).
    static func dispatchInterval(_ interval: Duration) -> DispatchTimeInterval {
        .milliseconds(max(1, interval.milliseconds))
    }
}
