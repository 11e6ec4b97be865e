import Foundation
import Scheduler
import Testing
import TestSupport

/// Real worker processes log what an operator needs, on standard error:
/// JSON lines (`--log-format json`) or text, at `--log-level` and above,
/// with one line per failed job, retry, dead letter, stall recovery and
/// Redis outage, naming the job, its batch, its URL (password masked) and
/// its error code (docs/operations.md, "Logs").
@Suite(.serialized)
struct LoggingTests {
    static let password = "log-pw-\(UUID().uuidString.prefix(8))"

    @Test func jsonLinesParseAndNameEachFailedJobRetryAndDeadLetterWithoutPasswords() async throws {
        // Given a 404, a 404 whose URL carries a password, and a closed
        // loopback port (transient: retried once within the attempt and once
        // as a whole job)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let missing = try Origin.missingURL()
        let secret = try Self.withPassword(Origin.missingURL())
        let unreachable = try #require(URL(string: "http://127.0.0.1:1/\(TestEnvironment.uniqueName("closed")).jpg"))
        let arguments = ["--log-format", "json", "--job-attempts", "2", "--retry-backoff", "0.2", "--max-attempts", "2"]

        // When a worker logging JSON runs them as one batch
        let (worker, batch) = try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 3,
                                                    arguments: arguments) { workers in
            let batch = try await queue.enqueue([missing, secret, unreachable])
            let status = try await queue.waitUntilFinished(batch: batch)
            #expect(status.failed == 3, "\(status)\n\(workers.logs)")
            return (workers[0], batch)
        }
        let jobs = try await jobIDs(ofBatch: batch, in: queue)

        // Then every line is one JSON object with the four fixed fields
        let lines = try Self.jsonLines(worker.log)
        #expect(lines.count >= 6, "\(worker.log)")
        let levels: Set<String> = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
        for line in lines {
            let ts = line["ts"] as? String ?? ""
            #expect(ts.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "ts: \(line)")
            #expect(levels.contains(line["level"] as? String ?? ""), "level: \(line)")
            #expect((line["component"] as? String)?.isEmpty == false, "component: \(line)")
            #expect((line["message"] as? String)?.isEmpty == false, "message: \(line)")
        }
        #expect(lines.contains { $0["component"] as? String == "worker" && $0["message"] as? String == "started" })

        // …the 404 is one line at info or above with its job, batch, URL and code
        let notFound = try #require(jobs[missing.absoluteString])
        let notFoundLines = lines.filter { $0["job"] as? String == notFound && Self.isInfoOrAbove($0) }
        #expect(notFoundLines.count == 1, "\(worker.log)")
        #expect(notFoundLines.first?["code"] as? String == "http_404", "\(worker.log)")
        #expect(notFoundLines.first?["batch"] as? String == batch)
        #expect(notFoundLines.first?["url"] as? String == missing.absoluteString)
        #expect(notFoundLines.first?["attempt"] as? String == "1")

        // …the one with a password shows it masked, and the password appears nowhere
        let secretJob = try #require(jobs[secret.absoluteString.replacingOccurrences(of: Self.password, with: "***")])
        let secretLine = lines.first { $0["job"] as? String == secretJob && Self.isInfoOrAbove($0) }
        #expect((secretLine?["url"] as? String)?.contains("alice:***@") == true, "\(worker.log)")
        #expect(!worker.log.contains(Self.password), "a password reached the log:\n\(worker.log)")

        // …and the transient failure logs its download retry, its job retry
        // (with the delay) and its final failure, each with the error code
        let refused = try #require(jobs[unreachable.absoluteString])
        let refusedLines = lines.filter { $0["job"] as? String == refused && Self.isInfoOrAbove($0) }
        let messages = refusedLines.map { $0["message"] as? String ?? "" }
        #expect(messages.contains("download failed; retrying"), "\(worker.log)")
        let retry = refusedLines.first { $0["message"] as? String == "job failed; retry scheduled" }
        #expect(retry?["code"] as? String == "transport" && retry?["retry_in_ms"] != nil, "\(worker.log)")
        let final = refusedLines.first { $0["message"] as? String == "job failed; dead-lettered" }
        #expect(final?["code"] as? String == "transport" && final?["attempt"] as? String == "2", "\(worker.log)")
        #expect(final?["level"] as? String == "warning")
    }

    @Test func logLevelWarningLeavesOutInfoLines() async throws {
        // Given a worker logging at warning and above
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let missing = try Origin.missingURL()
        let worker = try CollectedProcess(["worker"] + queue.redisArguments + [
            "--cache-dir", cache.path, "--log-format", "json", "--log-level", "warning",
        ])

        // When it fails a 404 job and stops
        let batch = try await queue.enqueue([missing])
        let status = try await queue.waitUntilFinished(batch: batch)
        #expect(status.failed == 1, "\(status)\n\(worker.standardErrorSoFar)")
        worker.send(SIGTERM)
        let result = try #require(await worker.waitForExit(timeout: .seconds(20)), "the worker did not stop")
        #expect(result.exited && result.status == 0, "\(result)")

        // Then its failure is logged, and nothing below warning is
        let lines = try Self.jsonLines(result.standardError)
        let job = try #require(try await jobIDs(ofBatch: batch, in: queue)[missing.absoluteString])
        #expect(lines.contains { $0["job"] as? String == job && $0["code"] as? String == "http_404" }, "\(result)")
        let levels = Set(lines.compactMap { $0["level"] as? String })
        #expect(levels.isSubset(of: ["warning", "error", "critical"]), "\(result.standardError)")
        #expect(!lines.contains { $0["message"] as? String == "started" })
    }

    @Test func textLinesGiveTimeLevelComponentMessageAndTheJobsFields() async throws {
        // Given a worker logging text (the default)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let missing = try Origin.missingURL()

        // When it fails a 404 job
        let (worker, batch) = try await withWorkers(queue: queue, cacheDirectory: cache) { workers in
            let batch = try await queue.enqueue([missing])
            _ = try await queue.waitUntilFinished(batch: batch)
            return (workers[0], batch)
        }

        // Then every line reads `TIME LEVEL [component] message key=value…`,
        // and the failure's line names the job, batch, URL, code and attempt, in that order
        let lines = worker.log.split(separator: "\n").map(String.init)
        for line in lines {
            #expect(line.prefixMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (trace|debug|info|notice|warning|error|critical) \[[a-z.]+\] \S/) != nil,
                    "not a log line: \(line)")
        }
        let job = try #require(try await jobIDs(ofBatch: batch, in: queue)[missing.absoluteString])
        let expected = "warning [queue] job failed; dead-lettered job=\(job) batch=\(batch) url=\(missing.absoluteString) code=http_404 attempt=1 "
        #expect(lines.filter { $0.contains(expected) }.count == 1, "expected “\(expected)” in:\n\(worker.log)")
    }

    @Test func aRedisOutageIsOneLineWhenItStartsAndOneWhenItEnds() async throws {
        // Given a worker on a redis-server of the test's own
        let redis = try await RedisServer.start()
        defer { redis.stop() }
        let queue = try QueueProbe(redisURL: redis.url)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }

        try await withWorkers(queue: queue, cacheDirectory: cache, arguments: ["--log-format", "json"]) { workers in
            // When Redis dies and comes back a second later
            await redis.kill()
            try await Task.sleep(for: .seconds(1))
            try await redis.restart()

            // Then the worker logs the loss (warning) and the reconnection
            // (info) of its connections, with the server's address
            let reconnected = await eventually(timeout: .seconds(30)) {
                ((try? Self.jsonLines(workers[0].log)) ?? []).contains { $0["message"] as? String == "Redis reconnected" }
            }
            #expect(reconnected, "\(workers.logs)")
            let lines = try Self.jsonLines(workers[0].log)
            let lost = lines.filter { $0["message"] as? String == "Redis connection lost" }
            #expect(!lost.isEmpty && lost.allSatisfy { $0["level"] as? String == "warning" }, "\(workers.logs)")
            #expect(lost.allSatisfy { $0["redis"] as? String == redis.url && $0["error"] != nil }, "\(workers.logs)")
            // (each client logs an outage once: its lines alternate, a loss,
            // then its reconnection. A client of several connections may
            // find a second one dead only after the first reconnected — a
            // second outage, logged as one)
            var outages: [String: [String]] = [:]
            for line in lines {
                guard let client = line["client"] as? String, let message = line["message"] as? String,
                      message == "Redis connection lost" || message == "Redis reconnected" else { continue }
                outages[client, default: []].append(message)
            }
            for (client, messages) in outages {
                let alternating = messages.enumerated().allSatisfy { index, message in
                    message == (index.isMultiple(of: 2) ? "Redis connection lost" : "Redis reconnected")
                }
                #expect(alternating, "\(client): \(messages)\n\(workers.logs)")
            }
            let back = lines.filter { $0["message"] as? String == "Redis reconnected" }
            #expect(back.allSatisfy { $0["level"] as? String == "info" && $0["redis"] as? String == redis.url })
        }
    }

    @Test func aStallRecoveryIsLoggedWithTheJobAndTheDeadWorker() async throws {
        // Given a worker with 3 s leases running a slow download (several seconds)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try await Origin.makeImages("log-stall", count: 1, width: 900, height: 900, slow: true)[0]
        let arguments = ["--lease-duration", "3", "--log-format", "json"]

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1, arguments: arguments) { first in
            let batch = try await queue.enqueue([image.url])
            let started = await eventually {
                ((try? await queue.events(ofBatch: batch)) ?? []).contains { $0.kind == .started }
            }
            try #require(started, "\(first.logs)")
            // When it is killed mid-download and another worker takes over
            let victim = ":\(first[0].processIdentifier):"
            try #require(await first[0].kill() != nil, "the worker did not die")
            try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1, arguments: arguments) { second in
                let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(60))
                #expect(status.completed == 1, "\(status)\n\(second.logs)")
                let job = try #require(try await jobIDs(ofBatch: batch, in: queue)[image.url.absoluteString])

                // Then the survivor logs the recovery: the job, its batch, its URL and the dead worker
                let lines = try Self.jsonLines(second[0].log)
                let recovery = lines.first { $0["message"] as? String == "lease expired; job recovered and queued again" }
                #expect(recovery?["job"] as? String == job, "\(second.logs)")
                #expect(recovery?["batch"] as? String == batch && recovery?["url"] as? String == image.url.absoluteString)
                #expect(recovery?["code"] as? String == "stalled" && recovery?["level"] as? String == "warning")
                #expect((recovery?["previous_worker"] as? String)?.contains(victim) == true, "\(second.logs)")
            }
        }
    }

    // MARK: Helpers

    /// Each non-empty line of `log` parsed as a JSON object; throws on a line that is not one.
    static func jsonLines(_ log: String) throws -> [[String: Any]] {
        try log.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw HarnessError("not a JSON object: \(line)")
            }
            return object
        }
    }

    static func isInfoOrAbove(_ line: [String: Any]) -> Bool {
        ["info", "notice", "warning", "error", "critical"].contains(line["level"] as? String ?? "")
    }

    /// `url` with the user `alice` and the test's password.
    static func withPassword(_ url: URL) throws -> URL {
        try #require(URL(string: url.absoluteString.replacingOccurrences(of: "http://", with: "http://alice:\(password)@")))
    }

    /// The job id of each URL of `batch` (as its events show it: passwords masked).
    private func jobIDs(ofBatch batch: String, in queue: QueueProbe) async throws -> [String: String] {
        let events = try await queue.events(ofBatch: batch)
        return Dictionary(events.compactMap { event in event.url.flatMap { url in event.jobID.map { (url, $0) } } }) { first, _ in first }
    }
}
