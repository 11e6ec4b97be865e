import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

@Suite("DataCache")
struct DataCacheTests {
    let directory: URL
    let cache: DataCache

    init() throws {
        directory = try TestEnvironment.temporaryDirectory("data-cache")
        cache = try DataCache.unswept(at: directory, sizeLimit: 3 << 20)
    }

    @Test func fileNameIsTheHexSHA256OfTheKey() {
        // The documented layout other programs rely on (docs/cache-layout.md).
        #expect(DataCache.filename(for: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(cache.url(for: "abc").lastPathComponent == DataCache.filename(for: "abc"))
    }

    @Test func stagedWriteIsReadableAtOnceAndLandsOnDisk() throws {
        // When: stored while the I/O queue is held, so nothing is on disk yet.
        cache.withIOSuspended {
            cache.storeData(Data("hello".utf8), for: "k")
            // Then: visible before it reaches the disk…
            #expect(!FileManager.default.fileExists(atPath: cache.url(for: "k").path))
            #expect(cache.cachedData(for: "k") == Data("hello".utf8))
            #expect(cache.sizeOfData(for: "k") == 5)
        }
        // …and on disk after a flush.
        cache.flush()
        #expect(try Data(contentsOf: cache.url(for: "k")) == Data("hello".utf8))
    }

    @Test func awaitedWriteReturnsTheFileInPlace() async throws {
        let url = try await cache.write(Data("bytes".utf8), for: "key")
        #expect(try Data(contentsOf: url) == Data("bytes".utf8))
        #expect(cache.sizeOfData(for: "key") == 5)
    }

    @Test func replaceKeepsTheNewestValue() {
        cache.storeData(Data("one".utf8), for: "k")
        cache.storeData(Data("two".utf8), for: "k")
        #expect(cache.cachedData(for: "k") == Data("two".utf8))
        cache.flush()
        #expect(cache.cachedData(for: "k") == Data("two".utf8))
    }

    @Test func removeHidesStagedAndWrittenData() {
        cache.storeData(Data("x".utf8), for: "a")
        cache.flush()
        cache.storeData(Data("y".utf8), for: "b")
        cache.removeData(for: "a")
        cache.removeData(for: "b")
        #expect(cache.cachedData(for: "a") == nil)
        #expect(cache.cachedData(for: "b") == nil)
        cache.flush()
        #expect(!FileManager.default.fileExists(atPath: cache.url(for: "a").path))
    }

    @Test func removeAllHidesEntriesBeforeTheDiskCatchesUp() {
        // Given: an entry on disk.
        cache.storeData(Data("1".utf8), for: "old")
        cache.flush()
        cache.withIOSuspended {
            // When: everything is removed, and the files are not deleted yet.
            cache.removeAll()
            #expect(FileManager.default.fileExists(atPath: cache.url(for: "old").path))
            // Then: reads miss at once, and a later store is visible.
            #expect(cache.cachedData(for: "old") == nil)
            #expect(cache.sizeOfData(for: "old") == nil)
            cache.storeData(Data("2".utf8), for: "new")
            #expect(cache.cachedData(for: "new") == Data("2".utf8))
        }
        cache.flush()
        #expect(cache.cachedData(for: "old") == nil)
        #expect(cache.cachedData(for: "new") == Data("2".utf8))
    }

    @Test func removeAllThenAddKeepsOnlyTheNewEntry() {
        cache.storeData(Data("1".utf8), for: "old")
        cache.flush()
        cache.removeAll()
        cache.storeData(Data("2".utf8), for: "new")
        cache.flush()
        #expect(cache.cachedData(for: "old") == nil)
        #expect(cache.cachedData(for: "new") == Data("2".utf8))
    }

    @Test func emptyKeyStoresNothing() async {
        cache.storeData(Data("x".utf8), for: "")
        await #expect(throws: (any Error).self) { try await cache.write(Data("x".utf8), for: "") }
        cache.flush()
        #expect(cache.cachedData(for: "") == nil)
        #expect(cache.sizeOfData(for: "") == nil)
        #expect(cache.totalSize == 0)
    }

    @Test func deletedFolderIsRecreatedOnTheNextWrite() async throws {
        try FileManager.default.removeItem(at: directory)
        let url = try await cache.write(Data("back".utf8), for: "k")
        #expect(try Data(contentsOf: url) == Data("back".utf8))
        #expect(cache.cachedData(for: "k") == Data("back".utf8))
    }

    @Test func cacheSurvivesItsFolderBeingDeletedWhileRunning() throws {
        // Given: an entry on disk, then the whole folder deleted by hand.
        cache.storeData(Data("gone".utf8), for: "old")
        cache.flush()
        try FileManager.default.removeItem(at: directory)
        // Then: reads are plain misses, and sweeps and sizes see an empty cache.
        #expect(cache.cachedData(for: "old") == nil)
        #expect(cache.sizeOfData(for: "old") == nil)
        #expect(!cache.containsData(for: "old"))
        cache.sweep()
        #expect(cache.totalSize == 0)
        // When: a background store is flushed.
        cache.storeData(Data("new".utf8), for: "new")
        cache.flush()
        // Then: the folder is back and the file landed.
        #expect(try Data(contentsOf: cache.url(for: "new")) == Data("new".utf8))
        #expect(cache.cachedData(for: "new") == Data("new".utf8))
        #expect(cache.totalSize == 3)
    }

    @Test func readRefreshesTheAccessDate() throws {
        // Given: an entry last used an hour ago.
        cache.storeData(Data("x".utf8), for: "read")
        cache.storeData(Data("x".utf8), for: "sized")
        cache.storeData(Data("x".utf8), for: "untouched")
        cache.flush()
        let hourAgo = Date(timeIntervalSinceNow: -3600)
        for key in ["read", "sized", "untouched"] { try setAccessDate(hourAgo, for: key) }
        // When
        _ = cache.cachedData(for: "read")
        _ = cache.sizeOfData(for: "sized")
        // Then: both reads moved the date to about now; the other entry kept it.
        #expect(try accessDate(of: "read") > hourAgo.addingTimeInterval(3000))
        #expect(try accessDate(of: "sized") > hourAgo.addingTimeInterval(3000))
        #expect(try accessDate(of: "untouched") < hourAgo.addingTimeInterval(1))
    }

    @Test func aSweepFrom4MBToUnderA3MBLimitRemovesTheLeastRecentlyRead() throws {
        // Given: four 1 MiB entries (limit 3 MiB, trim ratio 0.7 ⇒ target 2.1 MiB),
        // last used long ago in the order they were written: k0 oldest, k3 newest.
        let keys = ["k0", "k1", "k2", "k3"]
        for key in keys { cache.storeData(Data(repeating: 1, count: 1 << 20), for: key) }
        cache.flush()
        let longAgo = Date(timeIntervalSinceNow: -1000)
        for (index, key) in keys.enumerated() { try setAccessDate(longAgo.addingTimeInterval(Double(index)), for: key) }
        // When: k2 then k0 are read, which makes them the most recently used,
        // although k3 was written last.
        #expect(cache.cachedData(for: "k2") != nil)
        #expect(cache.cachedData(for: "k0") != nil)
        #expect(try accessDate(of: "k0") > accessDate(of: "k3") && accessDate(of: "k2") > accessDate(of: "k3"))
        cache.sweep()
        // Then: exactly the two entries read remain: 4 → 3 MiB is still above
        // 2.1 MiB, so the sweep removed the two least recently read, k1 and k3.
        let remaining = keys.filter { FileManager.default.fileExists(atPath: cache.url(for: $0).path) }
        #expect(remaining == ["k0", "k2"])
        #expect(cache.totalSize == 2 << 20)
        #expect(cache.totalSize <= 3 << 20)
    }

    @Test func sweepRemovesLeastRecentlyReadUntilUnderTheTrimmedLimit() throws {
        // Given: 4 MB in sixteen 256 KB entries (limit 3 MB, trim ratio 0.7), written oldest first.
        let entry = Data(repeating: 7, count: 256 << 10)
        let keys = (0..<16).map { "entry-\($0)" }
        for (index, key) in keys.enumerated() {
            cache.storeData(entry, for: key)
            cache.flush()
            // Distinct, increasing access dates, a second apart.
            let date = Date(timeIntervalSinceNow: Double(index - 100))
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: cache.url(for: key).path)
        }
        // When: the two oldest entries are read, which makes them the most recent.
        #expect(cache.cachedData(for: keys[0]) != nil)
        #expect(cache.containsData(for: keys[1]))
        cache.sweep()

        // Then: the total is under 3 MB × 0.7 and the survivors are the most recently used.
        #expect(cache.totalSize <= Int(Double(3 << 20) * 0.7))
        #expect(cache.containsData(for: keys[0]))
        #expect(cache.containsData(for: keys[1]))
        #expect(cache.containsData(for: keys[15]))
        #expect(!cache.containsData(for: keys[2]))
    }

    @Test func sweepLeavesACacheUnderItsLimitAlone() {
        cache.storeData(Data(repeating: 1, count: 1 << 20), for: "a")
        cache.storeData(Data(repeating: 1, count: 1 << 20), for: "b")
        cache.sweep()
        #expect(cache.containsData(for: "a") && cache.containsData(for: "b"))
    }

    @Test func periodicSweepTrimsWithoutBeingCalled() async throws {
        // Given: a 1 MiB cache that sweeps every 200 ms.
        let limit = 1 << 20
        let periodic = try DataCache(directory: try TestEnvironment.temporaryDirectory("sweep"),
                                     sizeLimit: limit, sweepInterval: .milliseconds(200))
        // When: 2 MiB is written, and no sweep asked for. k0…k6 get explicit
        // past access dates, so k7, written last with the current time, is the
        // most recently used whatever the file system's clock granularity.
        let entry = Data(repeating: 1, count: 256 << 10)
        for index in 0..<7 {
            try await periodic.write(entry, for: "k\(index)")
            let date = Date(timeIntervalSinceNow: Double(index - 100))
            try? FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: periodic.url(for: "k\(index)").path)
        }
        try await periodic.write(entry, for: "k7")
        // Then: a periodic sweep brings it within the limit. Only sweeps remove
        // files, so getting there from 2 MiB proves one ran.
        #expect(await eventually { periodic.totalSize <= limit })
        // The most recent entry survives: the sweep removes the least recently used first.
        #expect(periodic.containsData(for: "k7"))
    }

    @Test func sweepIntervalConvertsSaturating() throws {
        #expect(DataCacheSweep.dispatchInterval(.milliseconds(200)) == .milliseconds(200))
        #expect(DataCacheSweep.dispatchInterval(.zero) == .milliseconds(1))
        #expect(DataCacheSweep.dispatchInterval(.seconds(Int64.max)) == .milliseconds(.max))
        // Used to trap on overflow.
        _ = try DataCache(directory: directory, sweepInterval: .seconds(Int64.max))
    }

    // MARK: Helpers

    /// Sets `key`'s file modification date, the cache's access date.
    func setAccessDate(_ date: Date, for key: String) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: cache.url(for: key).path)
    }

    /// `key`'s file modification date, to the nanosecond.
    func accessDate(of key: String) throws -> Date {
        var status = stat()
        guard stat(cache.url(for: key).path, &status) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
    }
}
