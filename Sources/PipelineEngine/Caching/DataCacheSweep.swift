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
/// `leftoverLifetime`), and metadata whose data is gone. It also moves
/// the files of a flat folder into their shards (`DataCacheMigration`), so
/// a flat folder of an earlier release is converted by its sweeps.
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
        /// The file's path.
        let path: String
        /// Its size in bytes.
        let size: Int
        /// Its modification date: the entry's last access.
        let accessDate: Date
        /// What the file holds.
        let kind: DataCache.FileKind
        /// The file name without its kind's suffix: the entry's hash.
        let base: String
    }

    /// Removes leftovers, moves flat files into their shards, then, when
    /// the entries exceed `sizeLimit`, removes the least recently used ones
    /// until `targetSize` is reached.
    ///
    /// The first pass reads the folders one file at a time and keeps only a
    /// running total and a histogram of access dates, so a sweep takes
    /// little memory however many files the folder holds. Listing a
    /// 180,000-file folder into an array of entries every 30 s took about
    /// 20 MiB at each sweep and, between long-lived allocations, raised a
    /// worker's RSS with every file added (issue 23's soak). An eviction
    /// reads the folders again and removes the entries last read before the
    /// cutoff the histogram gives (`DataCacheEvictionPlan`), sorting only
    /// those of the cutoff's minute.
    @discardableResult
    func run() -> DataCacheSweepReport {
        let now = Date()
        var report = DataCacheSweepReport()
        var plan = DataCacheEvictionPlan()
        let migrated = Self.forEachEntry(in: directory) { entry in
            guard !removeIfLeftover(entry, now: now), entry.kind != .temporary else { return }
            report.files += 1
            report.bytes += entry.size
            if entry.kind != .metadata { plan.add(entry) }
        }
        report.migrated = migrated
        guard report.bytes > sizeLimit, let cutoff = plan.cutoff(freeing: report.bytes - targetSize) else { return report }
        var total = report.bytes
        var boundary: [Entry] = []
        Self.forEachEntry(in: directory) { entry in
            guard entry.kind == .data || entry.kind == .partial else { return }
            // A date read now, not in the first pass: an entry read since is spared.
            let bucket = DataCacheEvictionPlan.bucket(of: entry.accessDate)
            if bucket < cutoff, total > targetSize, let freed = remove(entry) {
                total -= freed
                report.evicted += 1
            } else if bucket == cutoff {
                boundary.append(entry)
            }
        }
        for entry in boundary.sorted(by: { $0.accessDate < $1.accessDate }) {
            guard total > targetSize else { break }
            guard let freed = remove(entry) else { continue }
            total -= freed
            report.evicted += 1
        }
        return report
    }

    /// Removes `entry` if it is a leftover: a temporary file or partial
    /// download older than `leftoverLifetime`, or metadata whose data is
    /// gone (after `orphanGracePeriod`). Returns whether it did.
    private func removeIfLeftover(_ entry: Entry, now: Date) -> Bool {
        let isLeftover = switch entry.kind {
        case .temporary, .partial: entry.accessDate < now - leftoverLifetime
        case .metadata:
            entry.accessDate < now - orphanGracePeriod
                && !FileManager.default.fileExists(atPath: String(entry.path.dropLast(DataCache.FileKind.metadata.suffix.count)))
                && !FileManager.default.fileExists(atPath: directory.appendingPathComponent(entry.base).path)
        case .data: false
        }
        guard isLeftover else { return false }
        unlink(entry.path)
        return true
    }

    /// Removes `entry`, and its metadata with its data. Returns the bytes
    /// freed, or `nil` when it was already gone.
    private func remove(_ entry: Entry) -> Int? {
        guard unlink(entry.path) == 0 else { return nil }
        guard entry.kind == .data else { return entry.size }
        let metadata = entry.path + DataCache.FileKind.metadata.suffix
        var status = stat()
        guard stat(metadata, &status) == 0, unlink(metadata) == 0 else { return entry.size }
        return entry.size + Int(status.st_size)
    }

    /// The regular files of the cache folder, with sizes and nanosecond access
    /// dates read by `stat` (Foundation's resource values round to seconds on
    /// Linux, which would make the LRU order arbitrary within a second).
    static func entries(in directory: URL) -> [Entry] {
        var entries: [Entry] = []
        forEachEntry(in: directory) { entries.append($0) }
        return entries
    }

    /// Calls `body` with each file of the cache folder `directory`, reading
    /// the folders as it goes (nothing but the current file is held): first
    /// the shard folders (`ab/cd/`), then the top folder, where each file
    /// of the flat layout is moved into its shard (`DataCacheMigration`)
    /// and reported at its new path, and temporary files are reported as
    /// they are. Hidden files other than temporary ones (markers, probes)
    /// are not entries. Unless `migrating`, flat files are reported where
    /// they are. Returns how many flat files it moved.
    @discardableResult
    static func forEachEntry(in directory: URL, migrating: Bool = true, _ body: (Entry) -> Void) -> Int {
        let prefix = directory.path.hasSuffix("/") ? directory.path : directory.path + "/"
        forEachName(in: prefix) { first, isFolder in
            guard isFolder, DataCacheLayout.isShardFolderName(first) else { return }
            forEachName(in: prefix + first + "/") { second, isFolder in
                guard isFolder, DataCacheLayout.isShardFolderName(second) else { return }
                let folder = prefix + first + "/" + second + "/"
                forEachName(in: folder) { name, isFolder in
                    guard !isFolder, !name.hasPrefix(".") || name.hasPrefix(DataCache.temporaryPrefix) else { return }
                    report(folder + name, name: name, to: body)
                }
            }
        }
        var migration = DataCacheMigration(directoryPrefix: prefix)
        forEachName(in: prefix) { name, isFolder in
            guard !isFolder else { return }
            if name.hasPrefix(DataCache.temporaryPrefix) {
                report(prefix + name, name: name, to: body)
            } else if DataCacheLayout.isFlatEntryName(name) {
                // Not moved (an error): still an entry, under its flat name.
                report((migrating ? migration.move(name) : nil) ?? prefix + name, name: name, to: body)
            }
        }
        return migration.movedCount
    }

    /// Calls `body` with `path`'s entry when it is a regular file.
    private static func report(_ path: String, name: String, to body: (Entry) -> Void) {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return }
        let modified = Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
        let (kind, base) = DataCache.FileKind.of(name)
        body(Entry(path: path, size: Int(status.st_size), accessDate: modified, kind: kind, base: base))
    }

    /// Calls `body` with the name of each item of the folder `folder`
    /// (a path ending in `/`) and whether it is a folder, as `readdir` gives them.
    private static func forEachName(in folder: String, _ body: (String, Bool) -> Void) {
        guard let handle = opendir(folder) else { return }
        defer { closedir(handle) }
        while let record = readdir(handle) {
            let name = withUnsafeBytes(of: record.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            let type = record.pointee.d_type
            let isFolder: Bool
            if type == UInt8(DT_UNKNOWN) {
                // Some file systems (older NFS, XFS without ftype) give no type.
                var status = stat()
                guard lstat(folder + name, &status) == 0 else { continue }
                isFolder = (status.st_mode & S_IFMT) == S_IFDIR
            } else {
                isFolder = type == UInt8(DT_DIR)
            }
            body(name, isFolder)
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
