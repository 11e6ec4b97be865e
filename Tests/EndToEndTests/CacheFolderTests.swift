import Foundation
import Scheduler
import Testing
import TestSupport

/// The worker's cache folder: refused at start when it takes no writes; a
/// folder that stops taking writes makes the worker not ready, and its jobs
/// go back to the queue instead of into the dead letters.
///
/// A read-only folder is a read-only tmpfs mount: root (as in CI) writes
/// through any file mode, so only a mount makes the folder read-only for
/// this test's worker. Without root the runtime test is reported skipped.
@Suite(.serialized)
struct CacheFolderTests {
    @Test func aReadOnlyCacheFolderIsRefusedAtStart() async throws {
        // Given a cache folder the worker cannot write to
        let folder = try ReadOnlyFolder()
        defer { folder.remove() }
        let queue = try QueueProbe()

        // When a worker is started on it
        let result = try await warmer(["worker"] + queue.redisArguments + ["--cache-dir", folder.url.path], timeout: .seconds(20))

        // Then it refuses to start, with a one-line reason naming the folder
        #expect(result.status != 0, "\(result)")
        let lines = result.standardError.split(separator: "\n").filter { $0.contains("Cannot start") }
        #expect(lines.count == 1, "\(result)")
        #expect(lines.first?.contains("cache folder \(folder.url.path)") == true, "\(result)")
        #expect(lines.first?.contains("not writable") == true, "\(result)")
    }

    @Test func aWorkerRefusesToStartWhenRedisDoesNotAnswer() async throws {
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let closedPort = try freeLoopbackPort()
        let result = try await warmer([
            "worker", "--redis", "redis://127.0.0.1:\(closedPort)", "--redis-wait", "1", "--cache-dir", cache.path,
        ], timeout: .seconds(30))
        #expect(result.status != 0, "\(result)")
        #expect(result.standardError.contains("Cannot start: Redis at redis://127.0.0.1:\(closedPort) did not answer"), "\(result)")
    }

    @Test(.enabled(if: getuid() == 0, "remounting a folder read-only needs root"))
    func aCacheFolderThatStopsTakingWritesMakesTheWorkerNotReadyAndReleasesItsJobs() async throws {
        // Given a worker whose cache folder (a tmpfs) turns read-only after it started
        let folder = try ReadOnlyFolder(writable: true)
        defer { folder.remove() }
        let queue = try QueueProbe()
        let images = try await Origin.makeImages("readonly", count: 4)
        let port = try freeLoopbackPort()
        let http = HTTPProbe(port: port)

        try await withWorkers(queue: queue, cacheDirectory: folder.url, concurrency: 2,
                              arguments: ["--http-port", String(port)]) { workers in
            let worker = workers[0]
            try await http.waitUntilAnswering()
            try folder.remount(writable: false)

            // When it claims jobs it cannot store
            let batch = try await queue.enqueue(images.map(\.url))

            // Then it says why, turns not ready, and gives every job back:
            // none failed or dead-lettered, all waiting in the queue
            let notReady = await eventuallyValue { () async -> HTTPProbe.Answer? in
                guard let answer = await http.get("/readyz"), answer.status == 503 else { return nil }
                return answer
            }
            let answer = try #require(notReady, "/readyz did not turn 503:\n\(worker.log)")
            #expect((answer.json["reason"] as? String)?.contains("cache folder") == true, "\(answer)")
            #expect(worker.log.contains("cache folder takes no writes"), "\(worker.log)")
            let released = await eventually {
                (try? await queue.queue.queuedCount()) == images.count
            }
            #expect(released, "the jobs did not all go back to the queue:\n\(worker.log)")
            let status = try await queue.queue.status(ofBatch: batch)
            #expect(status.failed == 0 && status.dead == 0 && status.completed == 0, "\(status)")
            #expect(try await queue.queue.deadLetterCount() == 0)

            // And once the folder takes writes again, it claims and completes them
            try folder.remount(writable: true)
            let finished = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(60))
            #expect(finished.completed == images.count, "\(finished)")
            #expect(await http.get("/readyz")?.status == 200)
        }
    }
}

/// A folder that takes no writes: a read-only tmpfs mount as root, else a
/// folder without write permission.
private struct ReadOnlyFolder {
    let url: URL
    let isMount: Bool

    init(writable: Bool = false) throws {
        url = try TestEnvironment.temporaryDirectory("readonly-cache")
        isMount = getuid() == 0
        if isMount {
            try Self.mount(["-t", "tmpfs", "-o", "\(writable ? "rw" : "ro"),size=64m", "tmpfs", url.path])
        } else if !writable {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: url.path)
        }
    }

    /// Makes the mount read-only or writable again (root only).
    func remount(writable: Bool) throws {
        try Self.mount(["-o", "remount,\(writable ? "rw" : "ro")", url.path])
    }

    func remove() {
        if isMount { try? Self.run("/bin/umount", [url.path]) }
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        try? FileManager.default.removeItem(at: url)
    }

    private static func mount(_ arguments: [String]) throws {
        try run("/bin/mount", arguments)
    }

    private static func run(_ path: String, _ arguments: [String]) throws {
        let exit = try ChildProcess(path, arguments, standardOutput: .inherited, standardError: .inherited).waitUntilExit()
        guard exit.status == 0, exit.exited else {
            throw HarnessError("\(path) \(arguments.joined(separator: " ")) exited \(exit.status)")
        }
    }
}
