import Foundation
import Scheduler
import Testing
import TestSupport

/// The worker registry seen from outside: real `warmer worker` processes
/// keep heartbeat records that `warmer workers`, `status` and `watch` show,
/// that go when a worker stops and lapse within a lease when it is killed.
@Suite(.serialized)
struct WorkerListingTests {
    /// The lease of the workers whose records are to lapse: a killed worker's record lapses after it.
    private let lease = 3

    /// `warmer workers --json`, decoded; also checks the documented keys.
    private func listedWorkers(_ queue: QueueProbe) async throws -> [WorkerRecord] {
        let result = try await warmer(["workers", "--json"] + queue.redisArguments)
        guard result.status == 0 else { throw HarnessError("warmer workers failed: \(result)") }
        let data = Data(result.standardOutput.utf8)
        let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]], "\(result)")
        for object in objects {
            #expect(Set(object.keys) == ["id", "host", "pid", "version", "concurrency", "busy", "jobs", "startedAt",
                                         "heartbeatAt", "expiresAt", "lease", "heartbeatAgeMs"], "\(result)")
        }
        return try JSONDecoder().decode([WorkerRecord].self, from: data)
    }

    private func waitForWorkers(_ queue: QueueProbe, count: Int) async throws -> [WorkerRecord] {
        let listed = try await eventuallyValue { () async throws -> [WorkerRecord]? in
            let workers = try await listedWorkers(queue)
            return workers.count == count ? workers : nil
        }
        let now = try await listedWorkers(queue)
        return try #require(listed, "\(count) workers should be listed, got \(now)")
    }

    @Test func twoWorkersAreListedWithTheirFields() async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        // (a long lease: a record that lapsed because a loaded machine held a
        // worker back for a few seconds would fail the count, not the feature)
        let lease = 30
        try await withWorkers(2, queue: queue, cacheDirectory: cache, concurrency: 3,
                              arguments: ["--lease-duration", String(lease)]) { workers in
            // When both have beaten
            let listed = try await waitForWorkers(queue, count: 2)

            // Then `--json` describes each process
            let version = try await warmer(["--version"]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(Set(listed.map(\.pid)) == Set(workers.map { Int($0.processIdentifier) }))
            for worker in listed {
                #expect(worker.id.contains(":\(worker.pid):") && worker.id.hasPrefix(worker.host + ":"), "\(worker)")
                #expect(!worker.host.isEmpty && worker.version == version && !version.isEmpty, "\(worker)")
                #expect(worker.concurrency == 3 && worker.busySlots == 0 && worker.runningJobIDs.isEmpty, "\(worker)")
                #expect(worker.leaseMilliseconds == lease * 1000 && worker.expiresAt == worker.heartbeatAt + lease * 1000)
                #expect(worker.startedAt <= worker.heartbeatAt && worker.heartbeatAge <= lease * 1000, "\(worker)")
            }
            // …the table has a header and one line per worker
            let table = try await warmer(["workers"] + queue.redisArguments)
            #expect(table.status == 0 && table.outputLines.count == 3, "\(table)")
            let titles: [String]? = table.outputLines.first?.split(separator: " ", omittingEmptySubsequences: true).map { String($0) }
            let expectedTitles: [String] = ["ID", "HOST", "PID", "VERSION", "STARTED", "CONCURRENCY", "BUSY", "HEARTBEAT", "JOBS"]
            #expect(titles == expectedTitles, "\(table)")
            for worker in listed {
                #expect(table.outputLines.contains { $0.hasPrefix(worker.id + " ") && $0.contains(" \(worker.pid) ") }, "\(table)")
            }
            // …and `status` counts them
            let status = try await warmer(["status"] + queue.redisArguments)
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
            #expect(fields["workers"] as? Int == 2, "\(status)")
        }
    }

    @Test func aBusyWorkersRecordNamesItsRunningJobs() async throws {
        // Given one worker with two slots and two slow downloads (about 7 s
        // each: several beats land while both run, even on a loaded machine)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("busy", count: 2, width: 1000, height: 1000, slow: true)
        try await withWorkers(1, queue: queue, cacheDirectory: cache, concurrency: 2,
                              arguments: ["--lease-duration", String(lease)]) { _ in
            let batch = try await queue.enqueue(images.map(\.url))
            // When both jobs run, then the record lists them
            let busy = try await eventuallyValue { () async throws -> WorkerRecord? in
                let started = Set(try await queue.events(ofBatch: batch).filter { $0.kind == .started }.compactMap(\.jobID))
                guard let record = try await listedWorkers(queue).first, started.count == 2,
                      Set(record.runningJobIDs) == started else { return nil }
                return record
            }
            let seen = try await listedWorkers(queue)
            let record = try #require(busy, "the record should list both running jobs: \(seen)")
            #expect(record.busySlots == 2)
            // …and once they are done, none
            _ = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(60))
            let idle = try await eventually { try await listedWorkers(queue).first.map { $0.busySlots == 0 && $0.runningJobIDs.isEmpty } ?? false }
            let after = try await listedWorkers(queue)
            #expect(idle, "\(after)")
        }
    }

    @Test func aKilledWorkerDropsOutWithinItsLease() async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        // The survivor with a long lease: only the victim's record may lapse,
        // however long a loaded machine holds the survivor's beats back.
        try await withWorkers(1, queue: queue, cacheDirectory: cache, arguments: ["--lease-duration", "30"]) { survivors in
            try await withWorkers(1, queue: queue, cacheDirectory: cache, arguments: ["--lease-duration", String(lease)]) { victims in
                let (victim, survivor) = (victims[0], survivors[0])
                let listed = try await waitForWorkers(queue, count: 2)
                let record = try #require(listed.first { $0.pid == Int(victim.processIdentifier) })

                // When worker A is killed
                let killed = try #require(await victim.kill(), "the killed worker did not go away")
                #expect(!killed.exited, "\(killed)")

                // Then its record expires within a lease of its last beat (Redis keeps the deadline)…
                let timeToLive = try #require(try await queue.send(["PTTL", queue.queue.keys.worker(record.id)]).integer)
                #expect(timeToLive <= lease * 1000, "record TTL \(timeToLive) ms")
                // …and it drops out of the listing and the count, B staying
                let dropped = try await eventually(timeout: .seconds(lease + 10)) {
                    try await listedWorkers(queue).map(\.pid) == [Int(survivor.processIdentifier)]
                }
                let remaining = try await listedWorkers(queue)
                #expect(dropped, "\(remaining)")
                #expect(try await queue.send(["EXISTS", queue.queue.keys.worker(record.id)]).integer == 0)
                #expect(try await queue.queue.statistics().workers == 1)
            }
        }
    }

    @Test func aCleanStopRemovesTheRecordAtOnce() async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        try await withWorkers(2, queue: queue, cacheDirectory: cache, arguments: ["--lease-duration", "30"]) { workers in
            let (leaving, staying) = (workers[0], workers[1])
            let listed = try await waitForWorkers(queue, count: 2)
            let record = try #require(listed.first { $0.pid == Int(leaving.processIdentifier) })

            // When worker A stops on SIGTERM
            leaving.requestStop()
            let result = try #require(await leaving.waitForExit(), "the worker did not stop")
            #expect(result.exited && result.status == 0, "\(result)")

            // Then its record is gone as it exits, long before its 30 s lease
            #expect(try await listedWorkers(queue).map(\.pid) == [Int(staying.processIdentifier)])
            #expect(try await queue.send(["EXISTS", queue.queue.keys.worker(record.id)]).integer == 0)
            #expect(try await queue.send(["ZSCORE", queue.queue.keys.workers, record.id]) == .null)
        }
    }

    @Test func theWatchHeaderShowsTheQueueAndPausedAfterPause() async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        try await withWorkers(1, queue: queue, cacheDirectory: cache) { _ in
            _ = try await waitForWorkers(queue, count: 1)
            // Given `warmer watch` on a terminal
            let watch = try TerminalSession(["watch"] + queue.redisArguments)
            let header = "queue \(queue.name)  queued 0  active 0  delayed 0  dead 0  workers 1"
            let running = await eventually { watch.lines.contains(header) }
            #expect(running, "the header should show the queue's totals and one worker:\n\(watch.lines.suffix(5))")

            // When the queue is paused, then the header says so
            let paused = try await warmer(["pause"] + queue.redisArguments)
            #expect(paused.status == 0, "\(paused)")
            let marked = await eventually { watch.lines.contains(header + "  paused") }
            #expect(marked, "the header should end with paused:\n\(watch.lines.suffix(5))")
            // …and stops saying so once resumed
            _ = try await warmer(["resume"] + queue.redisArguments)
            let count = watch.lines.count
            let resumed = await eventually { watch.lines.dropFirst(count).contains(header) }
            #expect(resumed, "\(watch.lines.suffix(5))")
            await watch.stop()
        }
    }
}
