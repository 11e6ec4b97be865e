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
        cache = try DataCache(directory: directory, sizeLimit: 3 << 20, sweepInterval: .seconds(3600))
    }

    @Test func fileNameIsTheHexSHA256OfTheKey() {
        // The documented layout other programs rely on (docs/cache-layout.md).
        #expect(DataCache.filename(for: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(cache.url(for: "abc").lastPathComponent == DataCache.filename(for: "abc"))
    }

    @Test func stagedWriteIsReadableAtOnceAndLandsOnDisk() throws {
        // When
        cache.storeData(Data("hello".utf8), for: "k")
        // Then: visible before any flush…
        #expect(cache.cachedData(for: "k") == Data("hello".utf8))
        #expect(cache.containsData(for: "k"))
        // …and on disk after it.
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

    @Test func removeAllThenAddKeepsOnlyTheNewEntry() {
        cache.storeData(Data("1".utf8), for: "old")
        cache.flush()
        cache.removeAll()
        cache.storeData(Data("2".utf8), for: "new")
        cache.flush()
        #expect(cache.cachedData(for: "old") == nil)
        #expect(cache.cachedData(for: "new") == Data("2".utf8))
    }

    @Test func emptyKeyStoresNothing() {
        cache.storeData(Data("x".utf8), for: "")
        cache.flush()
        #expect(cache.cachedData(for: "") == nil)
        #expect(cache.totalSize == 0)
    }

    @Test func deletedFolderIsRecreatedOnTheNextWrite() async throws {
        try FileManager.default.removeItem(at: directory)
        try await cache.write(Data("back".utf8), for: "k")
        #expect(cache.cachedData(for: "k") == Data("back".utf8))
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

    @Test func periodicSweepTrimsWhileTheProcessRuns() async throws {
        // Given: a 1 MiB cache that sweeps every 200 ms.
        let limit = 1 << 20
        let periodic = try DataCache(directory: try TestEnvironment.temporaryDirectory("sweep"),
                                     sizeLimit: limit, sweepInterval: .milliseconds(200))
        // When: it grows to 2 MiB after start-up, with no sweep asked for.
        try await Task.sleep(for: .milliseconds(1200))
        let entry = Data(repeating: 1, count: 256 << 10)
        for index in 0..<8 {
            try await periodic.write(entry, for: "k\(index)")
            // File times come from the kernel's coarse clock (a few ms per
            // tick); keep the writes a tick apart so "newest" is well defined.
            try await Task.sleep(for: .milliseconds(20))
        }
        // Then: a later periodic sweep brings it back within the limit. (Sweeps
        // may run between the writes, so the final size depends on timing; it
        // is never above the limit once a sweep has seen it.)
        let deadline = ContinuousClock.now + .seconds(5)
        while periodic.totalSize > limit, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(periodic.totalSize <= limit)
        #expect(periodic.totalSize < 8 * entry.count)
        // The most recent entry survives: the sweep removes the least recently used first.
        #expect(periodic.containsData(for: "k7"))
    }
}
