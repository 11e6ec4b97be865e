import DigestKit
import Foundation
import NIOPosix
import PipelineEngine
import Synchronization
import WarmerSupport

/// Opens the cache entries `GET /v1/cache` answers with, from the cache
/// folder this process is given (any number of processes may share it).
///
/// The entity tag is the SHA-256 of the bytes, so every server behind a load
/// balancer gives the same tag for the same bytes. Hashing reads the whole
/// file, so each file's digest (and media type) is remembered by
/// `FileIdentity` and computed once per version of the file; at most
/// `capacity` are kept (past that the memo starts afresh).
///
/// Serving an entry is a use: it is counted as any read of the cache is
/// (`DataCache.recordRead(ofFileAt:lastAccess:atMostEvery:)`: recorded in
/// Redis for the folder's sweeper, since the server may not write the
/// folder), at most once per `touchInterval` per file.
final class CacheReader: Sendable {
    /// What is remembered about one version of a file.
    private struct Facts: Sendable {
        let etag: String
        let mediaType: String
    }

    /// The cache folder.
    let dataCache: DataCache
    /// The least time between two recorded reads of a served file (unless
    /// the sweeper refreshed its date meanwhile).
    static let touchInterval: TimeInterval = 3600
    private let capacity: Int
    private let memo = Mutex<[FileIdentity: Facts]>([:])

    init(dataCache: DataCache, capacity: Int = 16_384) {
        self.dataCache = dataCache
        self.capacity = capacity
    }

    /// The entry stored under `key`, opened; `nil` when there is none.
    /// - Throws: when the file exists but cannot be read.
    func entry(for key: String) async throws -> CachedEntry? {
        let dataCache = self.dataCache
        return try await NIOThreadPool.singleton.runIfActive { [self] in
            let url = dataCache.fileURL(for: key)  // its shard, or its flat name in a folder not yet migrated
            if let entry = try openFile(url) { return entry }
            // A write of this process may still be staged in memory (warm=1).
            guard let data = dataCache.cachedData(for: key) else { return nil }
            return CachedEntry(bytes: .memory(data), size: data.count, modified: Date(),
                               etag: Self.etag(MessageDigest.sha256(data)), mediaType: ImageMediaType.of(data))
        }
    }

    /// Opens the file at `url` (blocking); `nil` when there is no such file.
    private func openFile(_ url: URL) throws -> CachedEntry? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw CachedEntryError(errno: errno)
        }
        var handedOver = false
        defer { if !handedOver { close(descriptor) } }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw CachedEntryError(errno: errno) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        let identity = FileIdentity(status)
        dataCache.recordRead(ofFileAt: url, lastAccess: identity.modified, atMostEvery: Self.touchInterval)
        let facts: Facts
        if let known = memo.withLock({ $0[identity] }) {
            facts = known
        } else {
            facts = try Self.facts(of: descriptor, size: identity.size)
            memo.withLock { memo in
                if memo.count >= capacity { memo.removeAll(keepingCapacity: true) }
                memo[identity] = facts
            }
        }
        handedOver = true
        return CachedEntry(bytes: .file(descriptor), size: identity.size, modified: identity.modified,
                           etag: facts.etag, mediaType: facts.mediaType)
    }

    /// Reads the whole file once (blocking): its digest and its media type.
    private static func facts(of descriptor: Int32, size: Int) throws -> Facts {
        var digest = MessageDigest(.sha256)
        var prefix = Data()
        var offset = 0
        while offset < size {
            let count = min(1 << 20, size - offset)
            var chunk = try CachedEntry.read(descriptor, offset: offset, count: count)
            let bytes = chunk.readBytes(length: chunk.readableBytes) ?? []
            digest.update(bytes)
            if prefix.count < ImageMediaType.signatureLength { prefix.append(contentsOf: bytes.prefix(ImageMediaType.signatureLength)) }
            offset += count
        }
        return Facts(etag: etag(digest.finalize()), mediaType: ImageMediaType.of(prefix))
    }

    /// A strong entity tag for a digest: `"` + 64 hex digits + `"`.
    private static func etag(_ digest: [UInt8]) -> String {
        "\"" + digest.hexString + "\""
    }
}
