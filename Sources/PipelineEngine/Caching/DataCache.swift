import DigestKit
import Foundation
import Synchronization
import WarmerSupport

/// An LRU disk cache of raw data, one file per key, in shard folders.
///
/// - **Layout.** A key's file name is the lowercase hex SHA-256 of the key's
///   UTF-8 bytes (`DataCache.filename(for:)`), in the folder named after its
///   first four hex digits (`ab/cd/abcd…`, `DataCacheLayout`), so any program
///   can find an entry (see docs/cache-layout.md). A lookup that misses there
///   tries the flat name of earlier releases, which sweeps move into place.
/// - **Writes** go to a temporary file in the same folder and are renamed into
///   place, so a reader never sees a half-written file. `storeData` stages the
///   data in memory and returns at once; reads see staged data immediately;
///   `write(_:for:)` waits until the file is in place; `flush()` waits for all.
/// - **LRU.** Reading an entry refreshes its modification date, which serves
///   as the access date (access times are unreliable under `noatime`/`relatime`).
///   A sweep removes the least recently used files until the total size is
///   under `sizeLimit × trimRatio`. It runs shortly after start-up and then
///   periodically, so a long-running process never outgrows its limit; with
///   no `sweepInterval`, only when `sweep()` is called (processes sharing a
///   folder elect one sweeper). Given an `accessRecorder`, reads are
///   recorded there instead of refreshing the file's date.
/// - A deleted folder is recreated on the next write.
public final class DataCache: DataCaching {
    /// The folder holding the entries.
    public let directory: URL
    /// The total size, in bytes, the sweep keeps the cache under.
    public let sizeLimit: Int
    /// The sweep trims the cache to `sizeLimit × trimRatio`. Default: 0.7.
    public let trimRatio: Double

    /// `directory`'s path with a trailing slash: file paths are built as
    /// strings on hot paths (Foundation's URL appending is slow on Linux).
    private let directoryPrefix: String
    /// Changes not yet on disk, which reads consult first.
    private let staging = Mutex(DataCacheStaging())
    /// The serial queue that applies staged changes and runs sweeps.
    private let ioQueue = DispatchQueue(label: "warmer.data-cache", qos: .utility)
    /// Where reads are recorded instead of touching the files, if anywhere.
    let accessRecorder: (any DataCacheAccessRecording)?
    /// The last generation number given to a staged change.
    private let generation = Atomic<UInt64>(0)

    /// Prefix of temporary files; the sweep deletes stale ones.
    static let temporaryPrefix = ".tmp-"

    /// Opens (creating if needed) a cache in `directory`.
    ///
    /// - Parameters:
    ///   - sizeLimit: bytes kept after a sweep, at most. Default: 1 GiB.
    ///   - sweepInterval: time between two sweeps, the first a second after
    ///     start-up. Default: 30 s; `nil`: only when `sweep()` is called.
    ///   - accessRecorder: where reads are recorded instead of refreshing
    ///     the files' dates (a process that may not write the folder).
    public init(
        directory: URL, sizeLimit: Int = 1 << 30, trimRatio: Double = 0.7,
        sweepInterval: Duration? = .seconds(30), accessRecorder: (any DataCacheAccessRecording)? = nil
    ) throws {
        self.directory = directory.standardizedFileURL
        self.directoryPrefix = self.directory.path.hasSuffix("/") ? self.directory.path : self.directory.path + "/"
        self.sizeLimit = sizeLimit
        self.trimRatio = trimRatio
        self.accessRecorder = accessRecorder
        if accessRecorder == nil {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        }
        if let sweepInterval {
            scheduleSweep(after: .seconds(1), then: DataCacheSweep.dispatchInterval(sweepInterval))
        }
    }

    /// Sweeps after `delay`, then every `interval` while the cache is alive.
    private func scheduleSweep(after delay: DispatchTimeInterval, then interval: DispatchTimeInterval) {
        ioQueue.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            makeSweep().run()
            scheduleSweep(after: interval, then: interval)
        }
    }

    /// A sweep pass with this cache's limits.
    private func makeSweep() -> DataCacheSweep {
        DataCacheSweep(directory: directory, sizeLimit: sizeLimit, targetSize: Int(Double(sizeLimit) * trimRatio))
    }

    // MARK: Keys and files

    /// The file name of `key`: lowercase hex SHA-256 of its UTF-8 bytes.
    public static func filename(for key: String) -> String {
        MessageDigest.sha256(Data(key.utf8)).hexString
    }

    /// Where `key`'s data lives (or would live) on disk.
    public func url(for key: String) -> URL {
        url(for: key, kind: .data)
    }

    /// Where `key`'s file of `kind` lives (or would live) on disk.
    public func url(for key: String, kind: FileKind) -> URL {
        URL(fileURLWithPath: path(of: Self.filename(for: key) + kind.suffix), isDirectory: false)
    }

    /// Where `key`'s data is now: its shard path, else its flat name when
    /// only that exists (a folder not yet migrated), else its shard path.
    public func fileURL(for key: String) -> URL {
        let filename = Self.filename(for: key)
        return URL(fileURLWithPath: existingPath(of: filename) ?? path(of: filename), isDirectory: false)
    }

    /// The path of the file `filename` in the cache's folder (in its shard).
    private func path(of filename: String) -> String {
        directoryPrefix + DataCacheLayout.relativePath(of: filename)
    }

    /// The path `filename` had in the flat layout of earlier releases.
    private func flatPath(of filename: String) -> String {
        directoryPrefix + filename
    }

    /// The path of the regular file `filename`, in its shard or under its
    /// flat name, or `nil`. Looks in the shard once more after the flat
    /// name, so a move by a concurrent sweep between the two looks is seen.
    func existingPath(of filename: String) -> String? {
        for path in [path(of: filename), flatPath(of: filename), path(of: filename)] {
            var status = stat()
            if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG { return path }
        }
        return nil
    }

    /// The contents of the file `filename` and its path, in its shard or
    /// under its flat name (as `existingPath`), or `nil`.
    private func readFile(_ filename: String) -> (Data, path: String)? {
        for path in [path(of: filename), flatPath(of: filename), path(of: filename)] {
            if let data = FileManager.default.contents(atPath: path) { return (data, path) }
        }
        return nil
    }

    // MARK: Reading

    /// The data stored for `key`, or `nil`. Refreshes the entry's access date.
    public func cachedData(for key: String) -> Data? {
        guard !key.isEmpty else { return nil }
        let filename = Self.filename(for: key)
        switch staging.withLock({ $0.change(for: filename) }) {
        case .add(let data, _): return data
        case .remove: return nil
        case nil: break
        }
        guard let found = readFile(filename) else { return nil }
        recordAccess(filename, at: found.path)
        return found.0
    }

    /// The metadata stored beside `key`'s data (HTTP cache mode), or `nil`.
    public func metadata(for key: String) -> Data? {
        companion(.metadata, of: key)
    }

    /// The start of an interrupted download of `key` kept to resume it, or `nil`.
    public func partialData(for key: String) -> Data? {
        companion(.partial, of: key)
    }

    /// The contents of `key`'s file of `kind`, staged or on disk, without
    /// refreshing its date (only reading the data counts as an access).
    private func companion(_ kind: FileKind, of key: String) -> Data? {
        guard !key.isEmpty else { return nil }
        let filename = Self.filename(for: key) + kind.suffix
        switch staging.withLock({ $0.change(for: filename) }) {
        case .add(let data, _): return data
        case .remove: return nil
        case nil: return readFile(filename)?.0
        }
    }

    /// The contents of the cache file at `url` (as `url(for:)` gives it),
    /// staged or on disk: a file whose write is still queued reads from
    /// memory, as every read of the cache does.
    public func contents(ofFileAt url: URL) -> Data? {
        switch staging.withLock({ $0.change(for: url.lastPathComponent) }) {
        case .add(let data, _): return data
        case .remove: return nil
        case nil: return FileManager.default.contents(atPath: url.path) ?? readFile(url.lastPathComponent)?.0
        }
    }

    /// The size of the cache file at `url`, staged or on disk; `nil` when absent.
    public func size(ofFileAt url: URL) -> Int? {
        switch staging.withLock({ $0.change(for: url.lastPathComponent) }) {
        case .add(let data, _): return data.count
        case .remove: return nil
        case nil:
            var status = stat()
            if stat(url.path, &status) == 0 { return Int(status.st_size) }
            guard let path = existingPath(of: url.lastPathComponent), stat(path, &status) == 0 else { return nil }
            return Int(status.st_size)
        }
    }

    /// Whether `key` has data, without reading it. Refreshes the access date.
    public func containsData(for key: String) -> Bool {
        sizeOfData(for: key) != nil
    }

    /// The size in bytes of `key`'s data, or `nil` when absent, without
    /// reading it. Refreshes the access date.
    public func sizeOfData(for key: String) -> Int? {
        guard !key.isEmpty else { return nil }
        let filename = Self.filename(for: key)
        switch staging.withLock({ $0.change(for: filename) }) {
        case .add(let data, _): return data.count
        case .remove: return nil
        case nil: break
        }
        var status = stat()
        guard let path = existingPath(of: filename), stat(path, &status) == 0 else { return nil }
        recordAccess(filename, at: path)
        return Int(status.st_size)
    }

    // MARK: Writing

    /// Stores `data` for `key` without waiting for the disk. Reads see it at
    /// once. Replaces the entry's metadata with `metadata` (none when `nil`).
    public func storeData(_ data: Data, for key: String, metadata: Data? = nil) {
        guard !key.isEmpty else { return }
        stageAndApply(entryChanges(data, metadata: metadata, for: key)) { _ in }
    }

    /// Stores `data` for `key` and returns once the file is in place.
    /// Replaces the entry's metadata with `metadata` (none when `nil`); the
    /// data is written first, so a reader never pairs new metadata with old data.
    /// - Returns: the file's URL.
    /// - Throws: the file system's error when the file cannot be written.
    @discardableResult
    public func write(_ data: Data, for key: String, metadata: Data? = nil) async throws -> URL {
        guard !key.isEmpty else { throw CocoaError(.fileWriteInvalidFileName) }
        let changes = entryChanges(data, metadata: metadata, for: key)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            stageAndApply(changes) { continuation.resume(with: $0) }
        }
        return url(for: key)
    }

    /// Replaces the metadata of `key`'s entry (after a revalidation), without waiting for the disk.
    public func storeMetadata(_ metadata: Data, for key: String) {
        guard !key.isEmpty else { return }
        stageAndApply([(.add(metadata, generation: nextGeneration()), Self.filename(for: key) + FileKind.metadata.suffix)]) { _ in }
    }

    /// Keeps the start of an interrupted download of `key`, to resume it later
    /// (possibly from another process sharing the folder). Returns once written.
    public func writePartialData(_ data: Data, for key: String) async throws {
        guard !key.isEmpty else { return }
        let change = (DataCacheStaging.Change.add(data, generation: nextGeneration()), Self.filename(for: key) + FileKind.partial.suffix)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            stageAndApply([change]) { continuation.resume(with: $0) }
        }
    }

    /// Forgets the interrupted download of `key`.
    public func removePartialData(for key: String) {
        guard !key.isEmpty else { return }
        stageAndApply([(.remove(generation: nextGeneration()), Self.filename(for: key) + FileKind.partial.suffix)]) { _ in }
    }

    /// Removes `key`'s data, its metadata and any partial download.
    public func removeData(for key: String) {
        guard !key.isEmpty else { return }
        let filename = Self.filename(for: key)
        stageAndApply([FileKind.data, .metadata, .partial].map { (.remove(generation: nextGeneration()), filename + $0.suffix) }) { _ in }
    }

    /// The changes that store an entry: its data, then its metadata (or the
    /// metadata's removal, since it described the data being replaced), then
    /// the removal of a partial download it completes.
    private func entryChanges(_ data: Data, metadata: Data?, for key: String) -> [(DataCacheStaging.Change, String)] {
        let filename = Self.filename(for: key)
        let metadataChange: DataCacheStaging.Change = metadata.map { .add($0, generation: nextGeneration()) }
            ?? .remove(generation: nextGeneration())
        return [
            (.add(data, generation: nextGeneration()), filename),
            (metadataChange, filename + FileKind.metadata.suffix),
            (.remove(generation: nextGeneration()), filename + FileKind.partial.suffix),
        ]
    }

    /// Removes every entry.
    ///
    /// Reads miss at once; the files are deleted on the I/O queue after every
    /// change staged before, and before every change staged after.
    public func removeAll() {
        let generation = nextGeneration()
        staging.withLock { staging in
            staging.stageRemoveAll(generation: generation)
            ioQueue.async { [directory] in
                // Markers (the folder's identity) and probes are not entries.
                let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                for file in files where !file.hasPrefix(".") || file.hasPrefix(Self.temporaryPrefix) {
                    try? FileManager.default.removeItem(at: directory.appendingPathComponent(file))
                }
                self.staging.withLock { $0.unstageRemoveAll(ifGeneration: generation) }
            }
        }
    }

    /// Blocks until every staged change is on disk.
    public func flush() {
        ioQueue.sync {}
    }

    /// Test hook: runs `body` while the I/O queue starts no new work, so a
    /// test can observe staged changes before they reach the disk. `body` must
    /// not wait for the queue (`flush`, `sweep`, `totalSize`, `write`).
    func withIOSuspended<T>(_ body: () throws -> T) rethrows -> T {
        ioQueue.suspend()
        defer { ioQueue.resume() }
        return try body()
    }

    /// Test hook: `withIOSuspended` for a body that awaits (a pipeline load).
    func withIOSuspended<T>(_ body: () async throws -> T) async rethrows -> T {
        ioQueue.suspend()
        defer { ioQueue.resume() }
        return try await body()
    }

    /// Writes what is staged, then sweeps now on the calling thread (which
    /// it blocks: seconds at a million files on a network share), beside
    /// writes that go on meanwhile, as the sweeps of other processes do.
    /// Flat files it meets are moved into their shards.
    @discardableResult
    public func sweep() -> DataCacheSweepReport {
        flush()
        return makeSweep().run()
    }

    /// The total size of the files in the cache, in bytes.
    public var totalSize: Int {
        flush()
        var total = 0
        DataCacheSweep.forEachEntry(in: directory, migrating: false) { total += $0.size }
        return total
    }

    // MARK: Private

    /// A new generation number, greater than every earlier one.
    private func nextGeneration() -> UInt64 {
        generation.add(1, ordering: .relaxed).newValue
    }

    /// Stages `changes` (to files of the folder) so reads see them at once,
    /// and queues their application, in order, in the same critical section:
    /// the I/O queue then applies concurrent changes in the order reads saw
    /// them. `completion` runs on the I/O queue with the first error, if any.
    private func stageAndApply(
        _ changes: [(DataCacheStaging.Change, String)],
        completion: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        staging.withLock { staging in
            for (change, filename) in changes { staging.stage(change, for: filename) }
            ioQueue.async {
                var failure: (any Error)?
                for (change, filename) in changes {
                    // After a failure (disk full), later changes are dropped:
                    // metadata must not describe data that was not written.
                    guard failure == nil else {
                        self.staging.withLock { $0.unstage(filename, ifGeneration: change.generation) }
                        continue
                    }
                    do { try self.apply(change, to: filename) } catch { failure = error }
                }
                completion(failure.map { .failure($0) } ?? .success(()))
            }
        }
    }

    /// Applies a staged change on the I/O queue, then unstages it unless a newer change replaced it.
    private func apply(_ change: DataCacheStaging.Change, to filename: String) throws {
        let path = path(of: filename)
        defer { staging.withLock { $0.unstage(filename, ifGeneration: change.generation) } }
        switch change {
        case .add(let data, _):
            try CacheFile.writeAtomically(data, to: path, via: self.path(of: Self.temporaryPrefix + UUID().uuidString),
                                          creating: directory)
        case .remove:
            unlink(path)  // ENOENT (nothing to remove) is fine
            unlink(flatPath(of: filename))  // else a sweep would move an old copy back into place
        }
    }
}
