import Foundation
import RedisKit
import Scheduler
import Testing
import TestSupport

/// Replies that mean "not now" — `LOADING` while Redis loads its data,
/// `BUSY` while a script runs too long — make every command wait and try
/// again, as workers do, instead of failing; `watch` exits 3 when it cannot
/// follow at all.
@Suite(.serialized)
struct TransientRedisReplyTests {
    @Test func bothWatchFormsAndStatusWaitWhileRedisLoadsItsDataThenFollow() async throws {
        // Given a Redis of the test's own holding a batch and 40,000 more keys
        // in its append-only file's RDB preamble…
        let redis = try await RedisServer.start()
        defer { redis.stop() }
        let queue = try QueueProbe(redisURL: redis.url)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("redis-loading", count: 4)
        let batch = try await queue.enqueue(images.map(\.url))
        try await queue.send(["EVAL", "for i = 1, 40000 do redis.call('SET', 'ballast:' .. i, i) end", "0"])
        try await queue.send(["BGREWRITEAOF"])
        let rewritten = await eventually(timeout: .seconds(60)) {
            guard let info = (try? await queue.send(["INFO", "persistence"]))?.string else { return false }
            return info.contains("aof_rewrite_in_progress:0") && info.contains("aof_rewrite_scheduled:0")
                && info.contains("aof_last_bgrewrite_status:ok")
        }
        try #require(rewritten, "the AOF rewrite did not finish:\n\(redis.logTail)")

        // …restarted so that loading those keys takes seconds (100 µs each)
        await redis.kill()
        try await redis.restart(arguments: ["--key-load-delay", "100", "--loading-process-events-interval-bytes", "1024"],
                                untilLoaded: false)
        try #require(await redis.isLoading(), "Redis was not loading after the restart:\n\(redis.logTail)")

        // When both forms of `watch` and a `status` start while it loads
        let batchWatch = try CollectedProcess(["watch"] + queue.redisArguments + ["--batch", batch, "--json"])
        let queueWatch = try CollectedProcess(["watch"] + queue.redisArguments + ["--json"])
        let status = try CollectedProcess(["status"] + queue.redisArguments + [batch])
        defer {
            for process in [batchWatch, queueWatch, status] where process.isRunning { process.send(SIGKILL) }
        }

        // Then each of them meets LOADING and waits instead of failing
        for (name, process) in [("watch --batch", batchWatch), ("watch", queueWatch), ("status", status)] {
            let waited = await eventually(timeout: .seconds(30)) {
                process.standardErrorSoFar.contains("LOADING") || !process.isRunning
            }
            #expect(waited && process.standardErrorSoFar.contains("retrying"),
                    "\(name) did not report waiting for a loading Redis:\n\(process.standardErrorSoFar)")
            #expect(process.isRunning || process.standardErrorSoFar.contains("Error") == false,
                    "\(name) gave up while Redis loaded:\n\(process.standardErrorSoFar)")
        }
        #expect(await redis.isLoading(), "Redis finished loading before the commands could be checked")
        let loaded = await eventually(timeout: .seconds(180), pollingEvery: .milliseconds(200)) {
            (try? await queue.send(["PING"]))?.string == "PONG"
        }
        try #require(loaded, "Redis did not finish loading:\n\(redis.logTail)")

        // …`status` then prints the batch
        let printed = try await status.result(timeout: .seconds(30))
        #expect(printed.exited && printed.status == 0 && printed.standardOutput.contains("\"total\" : 4"), "\(printed)")

        // …and once a worker runs the batch, `watch --batch` follows it to
        // its end and exits 0, and `watch` prints the queue's events. (Its
        // backoff is at most 5 s: give it that long to read again before
        // the events come.)
        try await Task.sleep(for: .seconds(6))
        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            let finished = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(60))
            #expect(finished.completed == 4, "\(finished)\n\(workers.logs)")
            let watched = try await batchWatch.result(timeout: .seconds(30))
            #expect(watched.exited && watched.status == 0, "\(watched)")
            #expect(watched.outputLines.last?.contains("batchCompleted") == true, "\(watched)")
            let followed = await eventually(timeout: .seconds(20)) {
                queueWatch.standardOutputSoFar.contains("\"completed\"") && queueWatch.standardOutputSoFar.contains(batch)
            }
            #expect(followed && queueWatch.isRunning, "watch did not follow the queue:\n\(queueWatch.standardOutputSoFar)\n\(queueWatch.standardErrorSoFar)")
        }
    }

    @Test func commandsWaitWhileAScriptKeepsRedisBusyAndRunOnce() async throws {
        // Given a Redis that answers BUSY after 100 ms of a running script,
        // a batch in it, and a script that loops until killed
        let redis = try await RedisServer.start(arguments: ["--busy-reply-threshold", "100"])
        defer { redis.stop() }
        let queue = try QueueProbe(redisURL: redis.url)
        let batch = try await queue.queue.enqueue(urls: ["http://127.0.0.1:1/a.jpg", "http://127.0.0.1:1/b.jpg"])
        let busyLoop = Task { try await redisCLI(url: redis.url, ["EVAL", "while true do end", "0"], timeout: .seconds(120)) }
        let busy = await eventually(timeout: .seconds(20)) {
            guard case .server(let message)? = await Self.pingError(redis.url) else { return false }
            return message.hasPrefix("BUSY")
        }
        try #require(busy, "Redis never answered BUSY:\n\(redis.logTail)")

        // When `status`, `watch --batch` and `enqueue` run meanwhile
        let status = try CollectedProcess(["status"] + queue.redisArguments + [batch])
        let watch = try CollectedProcess(["watch"] + queue.redisArguments + ["--batch", batch, "--json"])
        let urls = try TestEnvironment.temporaryDirectory("urls")
        defer { try? FileManager.default.removeItem(at: urls) }
        let list = urls.appendingPathComponent("urls.txt")
        try Data("http://127.0.0.1:1/c.jpg\nhttp://127.0.0.1:1/d.jpg\n".utf8).write(to: list)
        let enqueue = try CollectedProcess(["enqueue"] + queue.redisArguments + ["--batch", batch + "-more", list.path])
        defer { for process in [status, watch, enqueue] where process.isRunning { process.send(SIGKILL) } }

        // Then they wait on BUSY…
        for (name, process) in [("status", status), ("watch", watch), ("enqueue", enqueue)] {
            let waited = await eventually(timeout: .seconds(30)) {
                process.standardErrorSoFar.contains("BUSY") || !process.isRunning
            }
            #expect(waited && process.isRunning, "\(name) did not wait while Redis was busy:\n\(process.standardErrorSoFar)")
        }

        // …and go on once the script is killed: `status` prints the batch,
        // `enqueue` adds its batch once, `watch` still follows
        let killed = try await redisCLI(url: redis.url, ["SCRIPT", "KILL"])
        #expect(killed.standardOutput.contains("OK"), "\(killed)")
        _ = try? await busyLoop.value
        let printed = try await status.result(timeout: .seconds(30))
        #expect(printed.exited && printed.status == 0 && printed.standardOutput.contains("\"total\" : 2"), "\(printed)")
        let enqueued = try await enqueue.result(timeout: .seconds(30))
        #expect(enqueued.exited && enqueued.status == 0 && enqueued.outputLines.last == batch + "-more", "\(enqueued)")
        let added = try await queue.queue.status(ofBatch: batch + "-more")
        #expect(added.total == 2, "\(added)")
        #expect(watch.isRunning, "watch stopped following:\n\(watch.standardErrorSoFar)")
    }

    @Test func watchExitsThreeWhenItCannotFollowAndOneShotCommandsGiveUpAfterTheirWait() async throws {
        // Given a batch that does not exist, and a port nothing listens on
        let queue = try QueueProbe()
        let closed = "redis://127.0.0.1:\(try freeLoopbackPort())"

        // When `watch` is asked to follow them
        let unknown = try await warmer(["watch"] + queue.redisArguments + ["--batch", "no-such-batch", "--json"])
        let unreachable = try await warmer(["watch", "--redis", closed, "--redis-wait", "1", "--batch", "b", "--json"])
        let queueUnreachable = try await warmer(["watch", "--redis", closed, "--redis-wait", "1", "--json"])
        // …and a one-shot command to talk to a Redis that is not there
        let status = try await warmer(["status", "--redis", closed, "--redis-wait", "1"])

        // Then `watch` exits 3 ("could not follow"), not 1 ("the batch had
        // failures"), after retrying for as long as it was told when Redis
        // was unreachable; `status` retried, then failed
        #expect(unknown.exited && unknown.status == 3 && unknown.standardError.contains("no-such-batch"), "\(unknown)")
        for result in [unreachable, queueUnreachable] {
            #expect(result.exited && result.status == 3, "\(result)")
            #expect(result.standardError.contains("retrying"), "\(result)")
        }
        #expect(status.exited && status.status == 1 && status.standardError.contains("retrying"), "\(status)")
    }

    /// The error PING gets now from the Redis at `url`, if any.
    static func pingError(_ url: String) async -> RedisError? {
        guard let client = try? RedisClient(url: RedisURL(parsing: url), name: "test-ping", timeout: .seconds(2)) else { return nil }
        do {
            _ = try await client.send(["PING"])
            return nil
        } catch {
            return error
        }
    }
}
