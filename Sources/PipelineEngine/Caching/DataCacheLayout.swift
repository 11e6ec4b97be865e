import Foundation

/// Where `DataCache` puts a file: two levels of folders named after the
/// first four hex digits of the entry's hash (`ab/cd/abcd…`), so that no
/// folder holds more than a few hundred files at a million entries.
///
/// Folders of earlier releases were flat (`abcd…` at the top); a lookup that
/// misses falls back to the flat name, and the sweep moves each flat file
/// it meets into its shard (`DataCacheMigration`), so an old folder stays
/// readable while it is converted (docs/cache-layout.md).
enum DataCacheLayout {
    /// The hex digits of one shard level's folder name.
    static let levelWidth = 2
    /// The number of shard levels.
    static let levels = 2

    /// The path of the file `filename` relative to the cache folder:
    /// `ab/cd/<filename>` for an entry's file (its name starts with 4 hex
    /// digits), the name itself otherwise (temporary files, markers).
    static func relativePath(of filename: String) -> String {
        guard let shard = shard(of: filename) else { return filename }
        return shard + "/" + filename
    }

    /// `ab/cd` for a name starting with 4 lowercase hex digits, else `nil`.
    static func shard(of filename: String) -> String? {
        let utf8 = filename.utf8
        guard utf8.count >= levels * levelWidth, utf8.prefix(levels * levelWidth).allSatisfy(isHexDigit) else { return nil }
        let first = filename.prefix(levelWidth)
        let second = filename.dropFirst(levelWidth).prefix(levelWidth)
        return first + "/" + second
    }

    /// Whether `name` is a shard folder's name at either level (2 lowercase hex digits).
    static func isShardFolderName(_ name: String) -> Bool {
        name.utf8.count == levelWidth && name.utf8.allSatisfy(isHexDigit)
    }

    /// Whether `name` is an entry's file in the flat layout: a lowercase hex
    /// SHA-256 (64 digits), alone or with a kind's suffix (`.meta`, `.partial`).
    static func isFlatEntryName(_ name: String) -> Bool {
        let (kind, base) = DataCache.FileKind.of(name)
        return kind != .temporary && base.utf8.count == 64 && base.utf8.allSatisfy(isHexDigit)
    }

    /// `0-9a-f`.
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
    }
}
