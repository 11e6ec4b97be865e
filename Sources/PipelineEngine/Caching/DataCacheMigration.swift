import Foundation

/// Moves the files of a flat cache folder (earlier releases) into their shards
/// (`DataCacheLayout`), one file at a time, as the sweep meets them.
///
/// Each move is a hard link to the shard path, then the removal of the flat
/// name, never a `rename`: `rename` would replace a newer entry that a
/// worker of this version already wrote in the shard with the older flat
/// copy. So every state a crash can leave resumes by itself:
///
/// | state left by a crash | next move |
/// |---|---|
/// | flat file only | link, unlink |
/// | flat and shard names of one file | link fails with `EEXIST`: unlink the flat name |
/// | flat file and a newer shard file | `EEXIST`: the old flat copy is dropped |
/// | shard folder made, nothing linked | link, unlink |
///
/// and several processes migrating the same folder at once (on several
/// hosts of an NFS or EFS share) at worst both find `EEXIST` or `ENOENT`.
/// On a file system without hard links the move is a `rename` guarded by a
/// check that the shard name is free.
struct DataCacheMigration {
    /// The cache folder's path with a trailing slash.
    let directoryPrefix: String
    /// Shard folders known to exist, so each is created once per sweep.
    private var knownShards: Set<String> = []
    /// How many files this value moved.
    private(set) var movedCount = 0

    /// A migration of the folder whose path with a trailing slash is `directoryPrefix`.
    init(directoryPrefix: String) {
        self.directoryPrefix = directoryPrefix
    }

    /// Moves the flat file `name` into its shard. Returns its new path, or
    /// `nil` when it is gone (another process moved or removed it) or could
    /// not be moved (it stays readable under its flat name, and the next
    /// sweep tries again).
    mutating func move(_ name: String) -> String? {
        guard let shard = DataCacheLayout.shard(of: name) else { return nil }
        let source = directoryPrefix + name
        let destination = directoryPrefix + shard + "/" + name
        if !knownShards.contains(shard) {
            guard (try? FileManager.default.createDirectory(atPath: directoryPrefix + shard,
                                                            withIntermediateDirectories: true)) != nil else { return nil }
            knownShards.insert(shard)
        }
        if link(source, destination) == 0 || errno == EEXIST {
            unlink(source)
            movedCount += 1
            return destination
        }
        switch errno {
        case ENOENT:
            return nil
        case EPERM, ENOTSUP, EOPNOTSUPP, EMLINK, ENOSYS, EXDEV:
            var status = stat()
            if stat(destination, &status) == 0 {
                unlink(source)
            } else if rename(source, destination) != 0 {
                return nil
            }
            movedCount += 1
            return destination
        default:
            return nil
        }
    }
}
