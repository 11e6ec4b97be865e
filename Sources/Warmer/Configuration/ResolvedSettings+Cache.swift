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

    /// Opens the disk cache.
    func makeDataCache() throws -> DataCache {
        try DataCache(directory: cacheDirectory, sizeLimit: self[Settings.cacheSizeLimit] << 20)
    }
}
