import Foundation

/// The identity of a cache folder: a random id written once in the folder
/// (`.warmer-folder-id`), so that every process sharing the folder — over
/// NFS or EFS, from any host, whatever its mount path, whatever queue it
/// serves — names the same Redis keys for it (`SharedCacheKeys`).
package enum CacheFolderIdentity {
    /// The marker file's name. Hidden: the sweep and `removeAll` leave it alone.
    static let markerName = ".warmer-folder-id"

    /// The folder's id, created first if it has none and `creating`
    /// (a worker; `serve` on a read-only mount only reads it). `nil` when
    /// there is none and it could not or may not be created.
    ///
    /// Creation is safe among hosts racing to do it: the id is written to a
    /// file of its own, then hard-linked to the marker's name, which fails
    /// when another process got there first; every process then reads the
    /// one marker.
    package static func id(of directory: URL, creating: Bool) -> String? {
        let marker = directory.appendingPathComponent(markerName).path
        if let id = read(marker) { return id }
        guard creating else { return nil }
        let candidate = marker + ".new-" + UUID().uuidString
        let id = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        guard FileManager.default.createFile(atPath: candidate, contents: Data((id + "\n").utf8)) else { return nil }
        defer { unlink(candidate) }
        if link(candidate, marker) != 0, errno != EEXIST, rename(candidate, marker) != 0 { return nil }
        return read(marker)
    }

    /// The id in the marker at `path`: 32 lowercase hex digits, else `nil`.
    private static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count == 32, text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        else { return nil }
        return text
    }
}
