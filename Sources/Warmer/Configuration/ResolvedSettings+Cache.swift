import Foundation
import PipelineEngine

/// The disk cache the settings describe.
extension ResolvedSettings {
    /// The folder: `cache-dir`, else `$XDG_CACHE_HOME/warmer`, else `~/.cache/warmer`.
    var cacheDirectory: URL {
        if let path = self[Settings.cacheDir] {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        let base = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            .map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        return base.appendingPathComponent("warmer", isDirectory: true)
    }

    /// Opens the disk cache, creating its folder unless `creating` is false
    /// (the inspection commands create nothing: a mistyped `--cache-dir` is
    /// an error, not a new empty folder).
    /// - Parameters:
    ///   - sweeps: whether the cache sweeps itself every 30 s (`warmer
    ///     warm`); a worker's sweeps are elected (`CacheSweeper`), and the
    ///     other commands never sweep.
    ///   - accessRecorder: where reads are recorded, for a process that may
    ///     not write the folder (`warmer serve`).
    /// - Throws: `WarmerError.cacheFolderIsAFile` or `.noCacheFolder`, in
    ///   words rather than a Foundation error.
    func makeDataCache(creating: Bool = true, sweeps: Bool = false,
                       accessRecorder: (any DataCacheAccessRecording)? = nil) throws -> DataCache {
        let directory = cacheDirectory
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue { throw WarmerError.cacheFolderIsAFile(directory.path) }
        if !exists, !creating { throw WarmerError.noCacheFolder(directory.path) }
        return try DataCache(directory: directory, sizeLimit: self[Settings.cacheSizeLimit] << 20,
                             sweepInterval: sweeps ? .seconds(30) : nil, accessRecorder: accessRecorder)
    }
}
