import Foundation
import Scheduler
import Testing
import TestSupport

/// Workers ride out a Redis crash: they reconnect when it is back (with its
/// append-only file, so no acknowledged write is lost) and the batch finishes.
@Suite(.serialized)
struct RedisRestartTests {
    @Test func workersReconnectAfterARedisRestartAndTheBatchCompletes() async throws {
        // Given a redis-server of the test's own, fsyncing every write to its
        // append-only file (the shared one must not be killed)…
        let redis = try await RedisServer.start()
        defer { redis.stop() }
        let queue = try QueueProbe(redisURL: redis.url)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        // …eight ~260 KB images through /slow/ (about 2.5 s each), and two
        // workers with two slots each: two rounds of downloads
        let images = try await Origin.makeImages("redis-restart", count: 8, width: 600, height: 600, slow: true)

        try await withWorkers(2, queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            let batch = try await queue.enqueue(images.map(\.url))
            // (and an observer following the batch through the outage)
            let watch = try CollectedProcess(["watch"] + queue.redisArguments + ["--batch", batch, "--json"])

            // When Redis is killed mid-batch (some jobs completed, others
            // running or queued), and restarted a second later on the same
            // port and folder
            let midBatch = await eventually(timeout: .seconds(30)) {
                guard let status = try? await queue.queue.status(ofBatch: batch) else { return false }
                return status.completed >= 1
            }
            try #require(midBatch, "no job completed:\n\(workers.logs)")
            let before = try await queue.queue.status(ofBatch: batch)
            try #require(!before.isFinished, "the batch finished before Redis could be killed: \(before)")
            await redis.kill()
            try #require(!redis.isRunning, "redis-server survived SIGKILL")
            try await Task.sleep(for: .seconds(1))
            try await redis.restart()

            // Then the batch finishes with every job completed, once
            #expect(redis.isRunning, "redis-server died after the restart:\n\(redis.logTail)")
            let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(90))
            #expect(status.total == images.count, "\(status)")
            #expect(status.completed == images.count, "\(status)\n\(workers.logs)\n--- redis-server log ---\n\(redis.logTail)")
            #expect(status.failed == 0 && status.dead == 0 && status.cancelled == 0, "\(status)")
            let events = try await queue.events(ofBatch: batch)
            let completed = events.filter { $0.kind == .completed }
            #expect(completed.count == images.count && Set(completed.compactMap(\.jobID)).count == images.count,
                    "\(events.summary)")
            #expect(try await queue.queue.queuedCount() == 0)

            // …`warmer watch` rode out the outage and exited 0 when the batch finished…
            let watched = try #require(await watch.waitForExit(timeout: .seconds(30)), "warmer watch did not exit")
            #expect(watched.exited && watched.status == 0, "\(watched)")
            #expect(watched.outputLines.last?.contains("batchCompleted") == true, "\(watched)")

            // …into byte-identical files
            for image in images {
                let original = try image.contents()
                #expect((try? Data(contentsOf: cachedFile(for: image.url, in: cache))) == original,
                        "cache entry of \(image.url) differs from the origin")
            }

            // …both workers noticed the outage (their control-stream reader
            // is always connected) and are still running…
            for (index, worker) in workers.enumerated() {
                #expect(worker.log.contains("unavailable, retrying"), "worker \(index) did not see Redis go away:\n\(worker.log)")
                #expect(worker.isRunning, "worker \(index) exited:\n\(worker.log)")
            }

            // …and stop cleanly
            for worker in workers { worker.requestStop() }
            for (index, worker) in workers.enumerated() {
                let exit = await worker.waitForExit()
                let result = try #require(exit, "worker \(index) did not stop after SIGTERM; killed it. Log:\n\(worker.log)")
                #expect(result.exited && result.status == 0, "\(result)")
            }
        }
    }
}
