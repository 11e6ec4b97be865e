import Foundation
import NIOCore
import NIOPosix

/// One cache entry opened for an answer: its bytes (an open file, or the
/// staged bytes of a write this process has not finished), its size, its
/// date, its strong entity tag and its media type.
///
/// The file stays open until the answer is sent, so a sweep or a rewrite
/// of the entry meanwhile (both unlink or rename; nothing is written in
/// place) never mixes two versions in one answer. Reads run on NIO's
/// blocking-I/O thread pool, never on an event loop or Swift's cooperative pool.
final class CachedEntry: Sendable {
    /// Where the bytes are.
    enum Bytes: Sendable {
        /// An open file descriptor of the cache file, closed with the entry.
        case file(Int32)
        /// Bytes staged in memory, not yet on disk.
        case memory(Data)
    }

    /// The bytes.
    let bytes: Bytes
    /// The size in bytes.
    let size: Int
    /// The file's modification date (the cache's access date, see docs/http-api.md).
    let modified: Date
    /// The strong entity tag, quoted: the SHA-256 of the bytes.
    let etag: String
    /// The `Content-Type`, from the bytes' signature.
    let mediaType: String

    init(bytes: Bytes, size: Int, modified: Date, etag: String, mediaType: String) {
        self.bytes = bytes
        self.size = size
        self.modified = modified
        self.etag = etag
        self.mediaType = mediaType
    }

    deinit {
        if case .file(let descriptor) = bytes { close(descriptor) }
    }

    /// `count` bytes from `offset`.
    /// - Throws: `CachedEntryError` when the file cannot be read or ends early.
    func read(offset: Int, count: Int) async throws -> ByteBuffer {
        switch bytes {
        case .memory(let data):
            return ByteBuffer(bytes: data[(data.startIndex + offset)..<(data.startIndex + offset + count)])
        case .file(let descriptor):
            return try await NIOThreadPool.singleton.runIfActive {
                try Self.read(descriptor, offset: offset, count: count)
            }
        }
    }

    /// Reads `count` bytes at `offset` with `pread` (blocking).
    static func read(_ descriptor: Int32, offset: Int, count: Int) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var done = 0
        while done < count {
            let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - done) { pointer in
                let result = pread(descriptor, pointer.baseAddress, count - done, off_t(offset + done))
                return result > 0 ? result : 0
            }
            guard read > 0 else { throw CachedEntryError(errno: errno) }
            done += read
        }
        return buffer
    }
}
