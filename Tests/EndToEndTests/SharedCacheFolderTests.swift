import Foundation
import PipelineEngine
import RedisKit
import Testing
import TestSupport

/// A cache folder shared by many workers and `warmer serve` (over NFS or
/// EFS in production; one local folder here): a flat folder of an earlier
/// release is moved into shards by the workers while every reader still
/// finds its entries, one worker sweeps for all of them, and reads by a
/// `serve` that may not write the folder still count for the LRU.
///
/// `serve` reads the folder through a read-only bind mount, as a
/// deployment mounts the volume `readOnly` (root only, as in CI).
@Suite(.serialized)
struct SharedCacheFolderTests {
    @Test(.enabled(if: getuid() == 0, "a read-only bind mount needs root"))
    func aFlatFolderIsMigratedByWorkersWhileStayingReadableEvenAfterAKillMidway() async throws {
        // Given: a flat folder of 20,000 entries, as an earlier release left
        // it, with the states a crash of a migration can leave.
        let folder = try TestEnvironment.temporaryDirectory("flat-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let keys = (0..<20_000).map { "https://cdn.example/flat/\($0).jpg" }
        try await offCooperativePool { for key in keys { try CacheFolderFiles.writeFlat(key, in: folder) } }
        try CacheFolderFiles.writeFlat("https://cdn.example/stale.jpg", in: folder, bytes: "stale")
        try CacheFolderFiles.writeSharded("https://cdn.example/stale.jpg", in: folder, bytes: "fresh")
        let view = try ReadOnlyView(of: folder)
        defer { view.remove() }
        let serve = try await CacheServeProcess(cacheDirectory: view.url)
        defer { Task { await serve.stop() } }

        // Readable before any worker ran: `warmer cache` and `GET /v1/cache`.
        let sample = keys[4_321]
        let path = try await warmer(["cache", "path", "--cache-dir", folder.path, sample])
        #expect(path.status == 0 && path.standardOutput == folder.path + "/" + DataCache.filename(for: sample) + "\n", "\(path)")
        try await expectReadable(sample, folder: folder, serve: serve)

        // When: a worker starts migrating and is killed as soon as the first shard appears…
        let queue = try QueueProbe()
        let first = try RunningWorker(queue: queue, cacheDirectory: folder, concurrency: 1, gracePeriod: 5,
                                      arguments: ["--cache-sweep-interval", "0.2"])
        let started = await eventually(pollingEvery: .milliseconds(5)) { CacheFolderFiles.shardCount(in: folder) > 1 }
        await first.kill()
        #expect(started, "no shard folder appeared:\n\(first.log)")
        try await expectReadable(sample, folder: folder, serve: serve)

        // …and two workers take over.
        try await withWorkers(2, queue: queue, cacheDirectory: folder, concurrency: 1,
                              arguments: ["--cache-sweep-interval", "0.2"]) { workers in
            let migrated = await eventually(timeout: .seconds(300)) {
                // Entries stay readable while they move.
                try? await expectReadable(keys.randomElement()!, folder: folder, serve: serve)
                return CacheFolderFiles.flatCount(in: folder) == 0
            }
            #expect(migrated, "flat files remain: \(CacheFolderFiles.flatCount(in: folder))\n\(workers.logs)")
        }

        // Then: every entry is in its shard with its bytes, the newer copy kept.
        for key in keys {
            let bytes = FileManager.default.contents(atPath: CacheFolderFiles.shardedPath(key, in: folder))
            #expect(bytes == Data(key.utf8), "\(key)")
        }
        #expect(FileManager.default.contents(atPath: CacheFolderFiles.shardedPath("https://cdn.example/stale.jpg", in: folder))
                == Data("fresh".utf8))
        let moved = try await warmer(["cache", "path", "--cache-dir", folder.path, sample])
        #expect(moved.standardOutput == CacheFolderFiles.shardedPath(sample, in: folder) + "\n", "\(moved)")
        try await expectReadable(sample, folder: folder, serve: serve)
    }

    @Test func workersOfTwoQueuesSharingAFolderElectOneSweeperAndHandOverWhenItStops() async throws {
        let folder = try TestEnvironment.temporaryDirectory("shared-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["--cache-sweep-interval", "0.1"]
        let images = try QueueProbe(), thumbnails = try QueueProbe()

        try await withWorkers(queue: images, cacheDirectory: folder, concurrency: 1, arguments: arguments) { first in
            try await withWorkers(queue: thumbnails, cacheDirectory: folder, concurrency: 1, arguments: arguments) { second in
                let workers = first + second
                // When: at least ten sweeps have run.
                let swept = await eventually(timeout: .seconds(60)) { workers.map(\.sweepCount).reduce(0, +) >= 10 }
                #expect(swept, "\(workers.logs)")

                // Then: one worker swept them all, and it holds the folder's lease.
                let sweepers = workers.filter { $0.sweepCount > 0 }
                #expect(sweepers.count == 1, "\(workers.logs)")
                let id = try #require(CacheFolderFiles.folderID(in: folder))
                let holder = try await images.send(["GET", "warmer:cache:{\(id)}:sweeper"]).string
                let sweeper = try #require(sweepers.first)
                #expect(holder.map { sweeper.log.contains("worker=\($0)") } == true, "lease \(holder ?? "none")\n\(workers.logs)")

                // When: the sweeper stops, the other worker takes over.
                let other = try #require(workers.first { $0 !== sweeper })
                sweeper.requestStop()
                _ = await sweeper.waitForExit()
                let tookOver = await eventually(timeout: .seconds(60)) { other.sweepCount > 0 }
                #expect(tookOver, "\(workers.logs)")
            }
        }
    }

    @Test(.enabled(if: getuid() == 0, "a read-only bind mount needs root"))
    func readsByAReadOnlyServeKeepAnEntryThroughASweepThatEvictsColderOnes() async throws {
        // Given: 1.6 MiB in a folder limited to 1 MiB (a sweep trims it to
        // 0.7 MiB), the entry serve will read the coldest of all.
        let folder = try TestEnvironment.temporaryDirectory("served-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let id = "0123456789abcdef0123456789abcdef"
        try Data((id + "\n").utf8).write(to: folder.appendingPathComponent(".warmer-folder-id"))
        let served = "https://cdn.example/served.jpg"
        let colder = (1...3).map { "https://cdn.example/cold-\($0).jpg" }
        let body = String(repeating: "x", count: 400 << 10)
        for (age, key) in zip([3 * 3600, 2 * 3600, 2 * 3600 - 60, 2 * 3600 - 120], [served] + colder) {
            try CacheFolderFiles.writeSharded(key, in: folder, bytes: body, age: TimeInterval(age))
        }
        let servedPath = CacheFolderFiles.shardedPath(served, in: folder)
        let dateBefore = try CacheFolderFiles.modificationDate(servedPath)
        let view = try ReadOnlyView(of: folder)
        defer { view.remove() }
        let serve = try await CacheServeProcess(cacheDirectory: view.url)
        defer { Task { await serve.stop() } }

        // When: serve answers a read of it…
        let answer = try await serve.get(CacheServeProcess.cachePath(URL(string: served)!))
        #expect(answer.status == 200 && answer.body.count == body.utf8.count, "\(answer)")

        // …it records the read in Redis, without touching the file.
        let redis = try QueueProbe()
        let recorded = await eventually {
            (try? await redis.send(["ZSCORE", "warmer:cache:{\(id)}:reads", DataCache.filename(for: served)]).string) != nil
        }
        #expect(recorded, "serve recorded no read:\n\(serve.log)")
        #expect(try CacheFolderFiles.modificationDate(servedPath) == dateBefore)

        // When: a worker sweeps the folder.
        try await withWorkers(queue: redis, cacheDirectory: folder, concurrency: 1,
                              arguments: ["--cache-size-limit", "1", "--cache-sweep-interval", "0.2"]) { workers in
            let evicted = await eventually(timeout: .seconds(60)) { workers[0].log.contains("evicted=3") }
            #expect(evicted, "\(workers.logs)")
        }

        // Then: the read entry survived; the three colder ones are gone.
        #expect(FileManager.default.fileExists(atPath: servedPath))
        for key in colder { #expect(!FileManager.default.fileExists(atPath: CacheFolderFiles.shardedPath(key, in: folder)), "\(key)") }
        #expect(try await redis.send(["ZCARD", "warmer:cache:{\(id)}:reads"]).integer == 0)
    }

    /// `key`'s bytes are what `warmer cache get` prints and `GET /v1/cache` answers.
    private func expectReadable(_ key: String, folder: URL, serve: CacheServeProcess) async throws {
        let get = try await warmer(["cache", "get", "--cache-dir", folder.path, key])
        #expect(get.status == 0 && get.standardOutput == key, "\(get)")
        let answer = try await serve.get(CacheServeProcess.cachePath(URL(string: key)!))
        #expect(answer.status == 200 && answer.body == Data(key.utf8), "\(answer)")
    }
}

extension RunningWorker {
    /// How many sweeps of its cache folder this worker logged.
    var sweepCount: Int {
        log.split(separator: "\n").count { $0.contains("cache swept") }
    }
}
