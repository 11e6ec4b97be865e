import Foundation
import PipelineEngine

/// Cache files written and found by the documented layout
/// (docs/cache-layout.md), as another program would: `ab/cd/<sha256>`, or
/// flat `<sha256>` as earlier releases wrote them.
enum CacheFolderFiles {
    /// `key`'s data file in its shard.
    static func shardedPath(_ key: String, in folder: URL) -> String {
        let name = DataCache.filename(for: key)
        return folder.path + "/" + name.prefix(2) + "/" + name.dropFirst(2).prefix(2) + "/" + name
    }

    /// Writes `key`'s entry flat (its bytes: the key itself unless given).
    static func writeFlat(_ key: String, in folder: URL, bytes: String? = nil) throws {
        try Data((bytes ?? key).utf8).write(to: folder.appendingPathComponent(DataCache.filename(for: key)))
    }

    /// Writes `key`'s entry in its shard, last read `age` seconds ago.
    static func writeSharded(_ key: String, in folder: URL, bytes: String, age: TimeInterval = 0) throws {
        let path = shardedPath(key, in: folder)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(bytes.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date() - age], ofItemAtPath: path)
    }

    /// The files at the top of `folder` named like flat entries.
    static func flatCount(in folder: URL) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).count { $0.count == 64 }
    }

    /// The first-level shard folders of `folder`.
    static func shardCount(in folder: URL) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).count { $0.count == 2 }
    }

    /// The folder's identity (`.warmer-folder-id`), once a worker wrote it.
    static func folderID(in folder: URL) -> String? {
        (try? String(contentsOf: folder.appendingPathComponent(".warmer-folder-id"), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The modification date of the file at `path`.
    static func modificationDate(_ path: String) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
    }
}
