import Foundation
import Scheduler
import Testing
import TestSupport

/// `warmer watch` as people run it: it gives up on a Redis it never
/// reached, rides out restarts of one it did, and on a terminal draws a
/// board whose last frame shows the batch done.
@Suite(.serialized)
struct WatchCommandTests {
    @Test func aRedisThatNeverAnswersIsGivenUpWithinTheWaitNamingTheAddress() async throws {
        // Given a port nothing listens on
        let closed = "redis://127.0.0.1:\(try freeLoopbackPort())"

        // When `watch` follows the queue, or a batch, there with --redis-wait 2
        let queueWatch = try await warmer(["watch", "--redis", closed, "--redis-wait", "2"])
        let batchWatch = try await warmer(["watch", "--redis", closed, "--redis-wait", "2", "--batch", "b"])

        // Then each exits 3 (within the harness's 30 s, not after retrying
        // for ever) saying which Redis did not answer within which wait
        for result in [queueWatch, batchWatch] {
            #expect(result.exited && result.status == 3, "\(result)")
            #expect(result.standardError.contains("could not follow: Redis at \(closed) did not answer within 2 s (--redis-wait)"),
                    "\(result)")
        }
    }

    @Test func watchRidesOutARestartOfTheRedisItReachedAndShowsLaterEvents() async throws {
        // Given a redis-server of the test's own, a worker and `watch` following the queue
        let redis = try await RedisServer.start()
        defer { redis.stop() }
        let queue = try QueueProbe(redisURL: redis.url)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("watch-restart", count: 2)

        try await withWorkers(queue: queue, cacheDirectory: cache) { workers in
            let watch = try CollectedProcess(["watch"] + queue.redisArguments + ["--redis-wait", "60", "--json", "--log-level", "debug"])
            defer { if watch.isRunning { watch.send(SIGKILL) } }
            // (it follows the events published once it has reached Redis)
            let following = await eventually(timeout: .seconds(30)) { watch.standardErrorSoFar.contains("following") }
            try #require(following, "watch did not start following:\n\(watch.standardErrorSoFar)")
            let before = try await queue.enqueue([images[0].url])
            let sawBefore = await eventually(timeout: .seconds(30)) { watch.standardOutputSoFar.contains(before) }
            try #require(sawBefore, "watch did not show the first batch:\n\(watch.standardOutputSoFar)\n\(watch.standardErrorSoFar)")

            // When Redis is killed, and restarted a second later
            await redis.kill()
            try await Task.sleep(for: .seconds(1))
            try await redis.restart()

            // Then `watch` is still running and shows a batch enqueued after the restart, to its end
            let after = try await queue.enqueue([images[1].url])
            let finished = try await queue.waitUntilFinished(batch: after, timeout: .seconds(60))
            #expect(finished.completed == 1, "\(finished)\n\(workers.logs)")
            let sawAfter = await eventually(timeout: .seconds(30)) {
                watch.standardOutputSoFar.split(separator: "\n").contains { $0.contains(after) && $0.contains("\"batchCompleted\"") }
            }
            #expect(sawAfter && watch.isRunning,
                    "watch did not follow past the restart:\n\(watch.standardOutputSoFar)\n\(watch.standardErrorSoFar)")
            #expect(watch.standardErrorSoFar.contains("Redis unavailable, retrying"), "\(watch.standardErrorSoFar)")
            watch.send(SIGTERM)
            _ = await watch.waitForExit(timeout: .seconds(10))
        }
    }

    @Test func onATerminalTheBoardsLastFrameShowsTheBatchDone() async throws {
        // Given a worker and a batch of four images downloaded slowly (seconds each)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("watch-board", count: 4, width: 400, height: 400, slow: true)

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            let batch = try await queue.enqueue(images.map(\.url))

            // When `warmer watch --batch` follows it on a pseudo-terminal
            let watch = try TerminalSession(["watch"] + queue.redisArguments + ["--batch", batch])
            let status = await watch.exitStatus(within: .seconds(90))
            if status == nil { await watch.stop() }

            // Then it exits 0 once the batch is finished…
            #expect(status == 0, "\(watch.lines.suffix(8).joined(separator: "\n"))\n\(workers.logs)")
            // …having drawn the board: the header, the titles, and last the
            // batch's line with its four jobs ended and completed, and done
            let lines = watch.lines
            let titles = try #require(lines.lastIndex { $0.hasPrefix("BATCH ") }, "no board drawn:\n\(watch.output)")
            #expect(lines[titles - 1].hasPrefix("queue \(queue.name)  queued "), "\(lines.suffix(4))")
            let row = try #require(lines.last, "\(lines)")
            let cells = row.split(separator: " ").map(String.init)
            #expect(cells.first == batch && cells.contains("4/4") && cells.last == "done", "\(row)")
            let completed = try #require(lines[titles].split(separator: " ").firstIndex(of: "COMPLETED"))
            #expect(cells[completed] == "4" && cells[completed + 1] == "0", "completed 4, failed 0:\n\(lines[titles])\n\(row)")
        }
    }
}
