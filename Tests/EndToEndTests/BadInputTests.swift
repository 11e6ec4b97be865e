import Foundation
import Scheduler
import Testing
import TestSupport

/// Acceptance 7: bad URLs are refused at the door, or dead-lettered when they
/// get past it.
@Suite(.serialized)
struct BadInputTests {
    @Test func enqueueOfABinaryFileEscapesWhatItQuotes() async throws {
        // Given a binary file (an image, say) given by mistake as the URL list
        let queue = try QueueProbe()
        let folder = try TestEnvironment.temporaryDirectory("binary")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("photo.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x1B, 0x5B, 0x32, 0x4A, 0x07, 0x0A, 0x01, 0x02]).write(to: file)

        // When it is enqueued, the lines it quotes carry no control character
        let result = try await warmer(["enqueue"] + queue.redisArguments + [file.path])
        #expect(result.status != 0, "\(result)")
        #expect(result.standardError.contains("line 1:"), "\(result)")
        #expect(result.standardError.contains("\\u{1B}"), "the escape character should be shown escaped: \(result)")
        let controls = result.standardError.unicodeScalars.filter { $0.properties.generalCategory == .control && $0 != "\n" }
        #expect(controls.isEmpty, "control characters reached the terminal: \(controls.map(\.value))")
    }

    @Test func enqueueRefusesPortsOutOfRangeAndURLsWithSpaces() async throws {
        // Given URLs libcurl could never fetch (it fails them as malformed, curl error 3)
        let queue = try QueueProbe()
        let folder = try TestEnvironment.temporaryDirectory("urls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("urls.txt")
        let lines = ["http://127.0.0.1:99999/x.jpg", "http://127.0.0.1/a b.jpg", "http://127.0.0.1:8080/ok.jpg"]
        try Data(lines.joined(separator: "\n").utf8).write(to: file)

        // When they are enqueued, then they are refused, each line named, and nothing is queued
        let result = try await warmer(["enqueue"] + queue.redisArguments + [file.path])
        #expect(result.exited && result.status != 0, "\(result)")
        #expect(result.standardError.contains("line 1: http://127.0.0.1:99999/x.jpg"), "\(result)")
        #expect(result.standardError.contains("line 2: http://127.0.0.1/a b.jpg"), "\(result)")
        #expect(!result.standardError.contains("line 3"), "\(result)")
        #expect(try await queue.queue.queuedCount() == 0)
    }

    @Test func enqueueRefusesAFileWithBadLinesAndEnqueuesNothing() async throws {
        // Given a URL file whose lines 3 and 5 are not http(s) URLs
        let queue = try QueueProbe()
        let good = try Origin.url(path: TestEnvironment.uniqueName("good") + ".jpg")
        let folder = try TestEnvironment.temporaryDirectory("urls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("urls.txt")
        let lines = ["# a comment", good.absoluteString, "not a url", "", "ftp://example.com/a.jpg"]
        try Data(lines.joined(separator: "\n").utf8).write(to: file)

        // When it is enqueued
        let result = try await warmer(["enqueue"] + queue.redisArguments + [file.path])

        // Then enqueue fails, naming the bad lines
        #expect(result.exited && result.status != 0, "\(result)")
        #expect(result.standardError.contains("line 3: not a url"), "\(result)")
        #expect(result.standardError.contains("line 5: ftp://example.com/a.jpg"), "\(result)")
        #expect(!result.standardError.contains("line 2"), "\(result)")
        #expect(result.standardOutput.isEmpty, "no batch id should be printed: \(result)")

        // …and nothing reached Redis: no queued job, no batch
        #expect(try await queue.send(["ZCARD", queue.queue.keys.queue]).integer == 0)
        #expect(try await queue.send(["ZCARD", queue.queue.keys.batches]).integer == 0)
    }

    @Test func aJobWithAnInvalidURLIsDeadLetteredAndTheWorkerCarriesOn() async throws {
        // Given a job whose URL the CLI would have refused, pushed straight through the queue API
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let later = try await Origin.makeImages("after-dead", count: 1)[0]

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            // When a worker claims it
            let batch = try await queue.queue.enqueue(urls: ["not a url"])
            let status = try await queue.waitUntilFinished(batch: batch)

            // Then it is dead-lettered, not failed or completed
            #expect(status.dead == 1, "\(status)\n\(workers.logs)")
            #expect(status.completed == 0 && status.failed == 0)

            // …with a `deadLettered` event giving the reason
            let events = try await queue.events(ofBatch: batch)
            let dead = try #require(events.first { $0.kind == .deadLettered }, "\(events.summary)")
            #expect(dead.fields["error"] == "invalid_url")
            #expect(dead.fields["message"]?.isEmpty == false)
            #expect(dead.url == "not a url")

            // …and its id in the dead-letter set
            let job = try #require(dead.jobID)
            let score = try await queue.send(["ZSCORE", queue.queue.keys.dead, job])
            #expect(score != .null, "job \(job) is not in \(queue.queue.keys.dead)")

            // When a valid batch follows
            try #require(workers[0].isRunning, "the worker exited:\n\(workers.logs)")
            let next = try await queue.enqueue([later.url])
            let nextStatus = try await queue.waitUntilFinished(batch: next)

            // Then the same worker completes it
            #expect(nextStatus.completed == 1, "\(nextStatus)\n\(workers.logs)")
        }
    }
}
