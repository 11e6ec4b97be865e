extension DataCache {
    /// The files an entry can have in the cache's folder, told apart by
    /// their names (see docs/cache-layout.md):
    ///
    /// | file | holds |
    /// |---|---|
    /// | `<hash>` | the entry's data |
    /// | `<hash>.meta` | its HTTP metadata (HTTP cache mode only), JSON |
    /// | `<hash>.partial` | a download that was cut off, to resume |
    /// | `.tmp-<uuid>` | a write in progress |
    public enum FileKind: Sendable, Hashable {
        /// The entry's data.
        case data
        /// The entry's metadata, beside its data.
        case metadata
        /// The start of an interrupted download.
        case partial
        /// A file being written (or left by a crash mid-write).
        case temporary

        /// The suffix added to the entry's hash.
        var suffix: String {
            switch self {
            case .data, .temporary: ""
            case .metadata: ".meta"
            case .partial: ".partial"
            }
        }

        /// The kind of the file `name`, and its name without the kind's suffix.
        static func of(_ name: String) -> (FileKind, base: String) {
            if name.hasPrefix(DataCache.temporaryPrefix) { return (.temporary, name) }
            for kind in [FileKind.metadata, .partial] where name.hasSuffix(kind.suffix) {
                return (kind, String(name.dropLast(kind.suffix.count)))
            }
            return (.data, name)
        }
    }
}
