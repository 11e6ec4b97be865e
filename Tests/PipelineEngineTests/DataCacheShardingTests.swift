import Foundation
import Synchronization
import Testing
import TestSupport
@testable import PipelineEngine

/// The sharded layout (`ab/cd/<hash>`), reads of a flat folder of earlier
/// releases, and its migration by sweeps, from every state a crash leaves.
@Suite("DataCacheSharding")
struct DataCacheShardingTests {
    let directory: URL
    let cache: DataCache

    init() throws {
        directory = try TestEnvironment.temporaryDirectory("data-cache-shards")
        cache = try DataCache.unswept(at: directory, sizeLimit: 1 << 30)
    }

    @Test func anEntryIsWrittenInTheShardNamedAfterItsHash() async throws {
        let hash = DataCache.filename(for: "https://cdn.example/a.jpg")
        let url = try await cache.write(Data("bytes".utf8), for: "https://cdn.example/a.jpg", metadata: Data("{}".utf8))
        let shard = directory.path + "/" + hash.prefix(2) + "/" + hash.dropFirst(2).prefix(2)
        #expect(url.path == shard + "/" + hash)
        #expect(FileManager.default.contents(atPath: shard + "/" + hash) == Data("bytes".utf8))
        #expect(FileManager.default.contents(atPath: shard + "/" + hash + ".meta") == Data("{}".utf8))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/" + hash))
    }

    @Test func aFlatEntryIsReadableUntilASweepMovesItIntoItsShard() throws {
        // Given: a folder an earlier release wrote, flat.
        try writeFlat("old", data: "old bytes", metadata: "{\"v\":1}")

        // Then: readable as it is…
        #expect(cache.cachedData(for: "old") == Data("old bytes".utf8))
        #expect(cache.sizeOfData(for: "old") == 9)
        #expect(cache.metadata(for: "old") == Data("{\"v\":1}".utf8))
        #expect(cache.fileURL(for: "old").path == flatPath("old"))
        #expect(cache.contents(ofFileAt: cache.url(for: "old")) == Data("old bytes".utf8))

        // When: swept.
        let report = cache.sweep()

        // Then: both files moved into the shard, still readable, nothing left flat.
        #expect(report.migrated == 2)
        #expect(report.files == 2)
        #expect(FileManager.default.contents(atPath: cache.url(for: "old").path) == Data("old bytes".utf8))
        #expect(cache.fileURL(for: "old") == cache.url(for: "old"))
        #expect(cache.metadata(for: "old") == Data("{\"v\":1}".utf8))
        #expect(!FileManager.default.fileExists(atPath: flatPath("old")))
        #expect(cache.sweep().migrated == 0)
    }

    @Test func aSweepResumesFromEveryStateACrashCanLeave() throws {
        // A crash between linking the shard name and unlinking the flat one.
        try writeFlat("linked", data: "linked")
        try makeShard(for: "linked")
        #expect(link(flatPath("linked"), cache.url(for: "linked").path) == 0)
        // A newer entry written in its shard before the old flat copy moved.
        try writeFlat("replaced", data: "stale")
        try makeShard(for: "replaced")
        try Data("fresh".utf8).write(to: cache.url(for: "replaced"))
        // A crash after making the shard folder, before linking.
        try writeFlat("folder only", data: "folder only")
        try makeShard(for: "folder only")

        cache.sweep()

        for (key, bytes) in [("linked", "linked"), ("replaced", "fresh"), ("folder only", "folder only")] {
            #expect(FileManager.default.contents(atPath: cache.url(for: key).path) == Data(bytes.utf8), "\(key)")
            #expect(!FileManager.default.fileExists(atPath: flatPath(key)), "\(key)")
            #expect(cache.cachedData(for: key) == Data(bytes.utf8), "\(key)")
        }
    }

    @Test func twoProcessesMigratingOneFolderAtOnceLoseNoEntry() async throws {
        let keys = (0..<2_000).map { "https://cdn.example/\($0).jpg" }
        for key in keys { try writeFlat(key, data: key) }
        let other = try DataCache.unswept(at: directory)

        // When: two caches (as two hosts would) sweep the folder at the same time.
        async let first = Task.detached { cache.sweep().migrated }.value
        async let second = Task.detached { other.sweep().migrated }.value
        let moved = await first + second

        // Then: each file moved once or found moved; every entry is in its shard.
        #expect(moved >= keys.count)
        for key in keys {
            #expect(FileManager.default.contents(atPath: cache.url(for: key).path) == Data(key.utf8))
            #expect(!FileManager.default.fileExists(atPath: flatPath(key)))
        }
        #expect(cache.sweep().files == keys.count)
    }

    @Test func removingAnEntryAlsoRemovesItsFlatCopy() throws {
        try writeFlat("gone", data: "old")
        cache.removeData(for: "gone")
        cache.flush()
        #expect(!FileManager.default.fileExists(atPath: flatPath("gone")))
        cache.sweep()
        #expect(cache.cachedData(for: "gone") == nil)
    }

    @Test func aSweepEvictsFlatAndShardedEntriesByAccessDate() async throws {
        // Given: 3 MiB over a 2 MiB limit (trimmed to 1.4 MiB), the oldest flat.
        let small = try DataCache.unswept(at: directory, sizeLimit: 2 << 20)
        let megabyte = Data(repeating: 7, count: 1 << 20)
        try writeFlat("oldest", data: String(decoding: megabyte, as: UTF8.self))
        try FileManager.default.setAttributes([.modificationDate: Date() - 300], ofItemAtPath: flatPath("oldest"))
        try await small.write(megabyte, for: "older")
        try FileManager.default.setAttributes([.modificationDate: Date() - 200], ofItemAtPath: small.url(for: "older").path)
        try await small.write(megabyte, for: "newest")

        let report = small.sweep()

        #expect(report.evicted == 2)
        #expect(small.cachedData(for: "newest") != nil)
        #expect(small.cachedData(for: "oldest") == nil)
        #expect(small.cachedData(for: "older") == nil)
    }

    @Test func withAnAccessRecorderAReadIsRecordedAndTheFileLeftAlone() async throws {
        let recorder = Recorder()
        try await cache.write(Data("x".utf8), for: "read")
        let old = Date() - 7200
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: cache.url(for: "read").path)
        let reader = try DataCache(directory: directory, sweepInterval: nil, accessRecorder: recorder)

        #expect(reader.cachedData(for: "read") == Data("x".utf8))
        #expect(reader.recordRead(ofFileAt: reader.url(for: "read"), lastAccess: old, atMostEvery: 3600))
        #expect(!reader.recordRead(ofFileAt: reader.url(for: "read"), lastAccess: Date(), atMostEvery: 3600))

        #expect(recorder.names == [DataCache.filename(for: "read"), DataCache.filename(for: "read")])
        let date = try FileManager.default.attributesOfItem(atPath: cache.url(for: "read").path)[.modificationDate] as? Date
        #expect(date.map { abs($0.timeIntervalSince(old)) < 1 } == true)

        // The sweeper applies the record: the file's date is now.
        cache.applyRecordedAccess(toEntryNamed: DataCache.filename(for: "read"))
        let applied = try FileManager.default.attributesOfItem(atPath: cache.url(for: "read").path)[.modificationDate] as? Date
        #expect(applied.map { Date().timeIntervalSince($0) < 600 } == true)
    }

    // MARK: Helpers

    /// Where an earlier release kept `key`'s file.
    func flatPath(_ key: String) -> String {
        directory.path + "/" + DataCache.filename(for: key)
    }

    /// Writes `key`'s entry as an earlier release did: flat, with its metadata when given.
    func writeFlat(_ key: String, data: String, metadata: String? = nil) throws {
        try Data(data.utf8).write(to: URL(fileURLWithPath: flatPath(key)))
        if let metadata { try Data(metadata.utf8).write(to: URL(fileURLWithPath: flatPath(key) + ".meta")) }
    }

    /// Creates `key`'s shard folder.
    func makeShard(for key: String) throws {
        try FileManager.default.createDirectory(at: cache.url(for: key).deletingLastPathComponent(), withIntermediateDirectories: true)
    }

    /// Records the names it is given.
    final class Recorder: DataCacheAccessRecording {
        private let recorded = Mutex<[String]>([])
        var names: [String] { recorded.withLock { $0 } }
        func recordAccess(toEntryNamed filename: String) { recorded.withLock { $0.append(filename) } }
    }
}
