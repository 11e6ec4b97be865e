import Foundation

/// Plain POSIX file writes for the disk cache.
///
/// Foundation's `Data.write(to:)` calls `fsync` on every file, which costs
/// milliseconds each and capped warming at a few hundred files a second. A
/// cache needs atomicity (temporary file + rename, so a reader never sees a
/// partial entry), not per-file durability: after a power loss an entry
/// written in the last seconds may be missing, and is simply loaded again.
enum CacheFile {
    /// Creates `path` exclusively and writes `data` to it, without `fsync`.
    static func write(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw posixError() }
        defer { close(descriptor) }
        try data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }  // empty data: nothing to write
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw posixError()
                }
                offset += written
            }
        }
    }

    /// Writes `data` to the new file `temporary`, then renames it to `path`, so
    /// a reader never sees a partial file. When the folder is missing (deleted
    /// while the cache runs), recreates `directory` and tries once more; when
    /// `path`'s own folder (its shard) is missing, creates it and renames
    /// again. Leaves no temporary file behind on failure.
    static func writeAtomically(_ data: Data, to path: String, via temporary: String, creating directory: URL) throws {
        do {
            do {
                try write(data, to: temporary)
            } catch let error as POSIXError where error.code == .ENOENT {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try write(data, to: temporary)
            }
            do {
                try move(temporary, to: path)
            } catch let error as POSIXError where error.code == .ENOENT {
                let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try move(temporary, to: path)
            }
        } catch {
            unlink(temporary)  // a write that failed half-way (disk full) leaves a partial file
            throw error
        }
    }

    /// Sets the file's access and modification dates to now (`DataCache`'s LRU access date).
    static func touch(_ path: String) {
        utimensat(AT_FDCWD, path, nil, 0)
    }

    /// Renames `source` to `destination`, replacing it atomically.
    static func move(_ source: String, to destination: String) throws {
        guard rename(source, destination) == 0 else { throw posixError() }
    }

    /// The current `errno` as a Swift error.
    static func posixError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
