import Foundation

/// Which version of a cache file an open descriptor reads: its device,
/// inode, size and modification time. The cache never writes a file in
/// place (it renames a new file over the old one), so equal identities
/// have equal bytes, and a digest computed once serves every later answer.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int
    let seconds: Int
    let nanoseconds: Int

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int(status.st_size)
        seconds = Int(status.st_mtim.tv_sec)
        nanoseconds = Int(status.st_mtim.tv_nsec)
    }

    /// The modification time.
    var modified: Date {
        Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(nanoseconds) / 1e9)
    }
}
