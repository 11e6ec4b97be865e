import Foundation
import Scheduler
import Testing
import TestSupport

/// Issue 10, item 6: an origin that accepts and never answers, one that
/// sends headers then stalls, and one that trickles a byte a second each
/// end their job within the worst case docs/downloads.md gives ("Time
/// limits"), free their slot, and the worker carries on.
@Suite(.serialized)
struct SlowOriginTests {
    /// Small settings, so that the worst case is seconds, not minutes.
    private static let jobTimeout = 3, lowSpeedTime = 2, jobAttempts = 2, retryBackoff = 1
    private static let settings = [
        "--job-timeout", String(jobTimeout), "--low-speed-time", String(lowSpeedTime),
        "--job-attempts", String(jobAttempts), "--retry-backoff", String(retryBackoff),
    ]
    /// docs/downloads.md: a job ends within `--job-attempts` × `--job-timeout`
    /// plus its backoffs (`--retry-backoff`, doubled per attempt) after it
    /// first starts.
    private static var worstCase: Duration {
        let backoffs = (1..<jobAttempts).map { retryBackoff << ($0 - 1) }.reduce(0, +)
        return .seconds(jobAttempts * jobTimeout + backoffs)
    }
    /// Room for a loaded machine: claims, finishes, process scheduling.
    private static let margin: Duration = .seconds(10)

    /// The three slow origins, tagged with `id` in the fault origin's log.
    private static func slowOrigins(_ id: String) throws -> [URL] {
        [
            try FaultOrigin.hang(id: id + "-silent"),
            try FaultOrigin.url(file: "img-0001.jpg", ["id": id + "-stall", "stall": "0"]),
            try FaultOrigin.url(file: "large.jpg", ["id": id + "-trickle", "rate": "1"]),
        ]
    }

    @Test func slowOriginsFailWithinTheWorstCaseAndFreeTheirSlots() async throws {
        // Given a worker with three slots and the three slow origins, then a good image, in one batch
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let id = TestEnvironment.uniqueName("slow")
        let slow = try Self.slowOrigins(id)
        let good = try await Origin.makeImages("after-slow", count: 1)[0]

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 3, arguments: Self.settings) { workers in
            // When the batch runs (the slow jobs take every slot first: FIFO)
            let batch = try await queue.enqueue(slow + [good.url])
            let status = try await queue.waitUntilFinished(batch: batch, timeout: Self.worstCase + Self.margin + .seconds(30))

            // Then the three slow jobs failed, for good, with deadline_exceeded…
            #expect(status.failed == 3 && status.completed == 1, "\(status)\n\(workers.logs)")
            let events = try await queue.events(ofBatch: batch)
            for url in slow.map(\.absoluteString) {
                let mine = events.filter { $0.url == url }
                let started = try #require(mine.first { $0.kind == .started }?.timestamp, "\(events.summary)")
                let failed = try #require(mine.first { $0.kind == .failed }, "\(events.summary)")
                #expect(failed.fields["error"] == "deadline_exceeded", "\(events.summary)")
                #expect(failed.fields["message"]?.contains("\(Self.jobTimeout) s") == true)
                // …each within the documented worst case of its first start (Redis's clock on both)
                let took = Duration.milliseconds(try #require(failed.timestamp) - started)
                #expect(took <= Self.worstCase + Self.margin, "\(url) took \(took)")
                #expect(took >= .seconds(Self.jobTimeout), "\(url) ended before its time limit: \(took)")
            }
            // …the good image got a slot only once a slow job had freed one, and completed
            let firstFailure = try #require(events.filter { $0.kind == .failed }.compactMap(\.timestamp).min())
            let goodStart = try #require(events.first { $0.url == good.url.absoluteString && $0.kind == .started }?.timestamp)
            #expect(goodStart >= firstFailure, "\(events.summary)")
            #expect((try? Data(contentsOf: cachedFile(for: good.url, in: cache))) == (try good.contents()))

            // …the worker let go of the origins' connections (the fault origin logs a request when it ends)
            let released = await eventually(timeout: .seconds(10)) {
                ["silent", "stall", "trickle"].allSatisfy { ((try? FaultOrigin.requests(id: "\(id)-\($0)")) ?? []).count >= 1 }
            }
            #expect(released, "the fault origin still holds a connection open")

            // …and the worker is still running
            #expect(workers[0].isRunning, "\(workers.logs)")
        }
    }

    @Test func aDocumentsTimeoutOverridesTheWorkers() async throws {
        // Given a worker whose own limits would wait minutes
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let silent = try FaultOrigin.hang(id: TestEnvironment.uniqueName("silent"))
        let batch = TestEnvironment.uniqueName("timeout")

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1,
                              arguments: ["--job-timeout", "600", "--low-speed-time", "300"]) { workers in
            // When a producer's document gives its jobs 2 seconds
            let document = #"{"v":1,"batch":"\#(batch)","timeout":2,"urls":["\#(silent.absoluteString)"]}"#
            try await queue.send(["RPUSH", queue.queue.keys.intake, document])
            let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(2) + Self.margin + .seconds(30))

            // Then its job fails with deadline_exceeded after about 2 s, not 600
            #expect(status.failed == 1, "\(status)\n\(workers.logs)")
            let events = try await queue.events(ofBatch: batch)
            let started = try #require(events.first { $0.kind == .started }?.timestamp, "\(events.summary)")
            let failed = try #require(events.first { $0.kind == .failed }, "\(events.summary)")
            #expect(failed.fields["error"] == "deadline_exceeded" && failed.fields["message"]?.contains("2 s") == true)
            let took = Duration.milliseconds(try #require(failed.timestamp) - started)
            #expect(took >= .seconds(2) && took <= .seconds(2) + Self.margin, "took \(took)")
        }
    }

    @Test func warmGivesEachURLTheSameTimeLimit() async throws {
        // Given the three slow origins in a URL file
        let folder = try TestEnvironment.temporaryDirectory("warm-slow")
        defer { try? FileManager.default.removeItem(at: folder) }
        let slow = try Self.slowOrigins(TestEnvironment.uniqueName("warm-slow"))
        let list = folder.appendingPathComponent("urls.txt")
        try Data(slow.map { $0.absoluteString + "\n" }.joined().utf8).write(to: list)

        // When `warmer warm` runs them with the same settings as a worker
        let started = ContinuousClock.now
        let result = try await warmer(
            ["warm", "--cache-dir", folder.appendingPathComponent("cache").path, "--job-timeout", String(Self.jobTimeout),
             "--low-speed-time", String(Self.lowSpeedTime), list.path],
            environment: ["WARMER_REDIS_URL": "redis://127.0.0.1:1"], timeout: .seconds(60))

        // Then each URL fails with deadline_exceeded and warm exits 1, within one time limit (they run at once)
        #expect(result.exited && result.status == 1, "\(result)")
        for url in slow {
            #expect(result.standardError.contains("failed deadline_exceeded \(url.absoluteString)"), "\(result)")
        }
        #expect(ContinuousClock.now - started <= .seconds(Self.jobTimeout) + Self.margin, "\(result)")
    }
}
