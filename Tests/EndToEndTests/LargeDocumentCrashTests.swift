import Foundation
import Scheduler
import Testing
import TestSupport

/// Issue 24, item 5: a large intake document is parsed by the worker whose
/// claim took it (parsing.lua), and a worker `kill -9`ed at any step of that
/// loses nothing and counts nothing twice: once its lease expires, the next
/// worker parses the document again from scratch, and the batch completes
/// with every URL once. The worker is stopped at the step by
/// `WARMER_TEST_HALT_PARSING` (it logs `halted for a test` and waits
/// forever), so the kill lands exactly there.
@Suite(.serialized)
struct LargeDocumentCrashTests {
    /// The steps a worker can die at: leased (nothing pushed), part-way
    /// through its pushes (1,000 of 1,200 URLs), everything pushed but not staged.
    @Test(arguments: [("leased", 0), ("pushed-1000", 1000), ("parsed", 1200)])
    func aWorkerKilledWhileParsingALargeDocumentLosesNothingAndCountsEachURLOnce(step: String, pushed: Int) async throws {
        // Given a 1,200-URL document (about 90 KB: parsed by the worker) pushed with a plain RPUSH
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try #require(try await Origin.makeImages("parse-crash", count: 1).first)
        let urls = (0..<1200).map { "\(image.url.absoluteString)?n=\($0)" }
        let batch = TestEnvironment.uniqueName("parsed")
        let document = try JSONSerialization.data(withJSONObject: ["v": 1, "batch": batch, "urls": urls] as [String: Any])
        #expect(document.count > 32768)
        try await queue.send(["RPUSH", queue.queue.keys.intake, String(decoding: document, as: UTF8.self)])
        let slot = queue.queue.keys.prefix + "intake:parsing"

        // When a worker's claim takes it and the worker is killed at the step
        let doomed = try RunningWorker(queue: queue, cacheDirectory: cache, concurrency: 4, gracePeriod: 1,
                                       arguments: ["--lease-duration", "3"], environment: ["WARMER_TEST_HALT_PARSING": step])
        let halted = await eventually(timeout: .seconds(60)) { doomed.log.contains("halted for a test") || !doomed.isRunning }
        try #require(halted && doomed.isRunning, "the worker never reached \(step):\n\(doomed.log)")
        let killed = await doomed.kill()
        #expect(killed.map { !$0.exited } ?? false, "the worker should have died of SIGKILL")

        // Then the document is still leased to it, with what it pushed, and nothing counted yet
        #expect(try await queue.send(["LLEN", slot + ":urls"]).integer == pushed)
        #expect(try await queue.send(["EXISTS", queue.queue.keys.parsingDocument]).integer == 1)
        #expect(try await queue.send(["EXISTS", queue.queue.keys.batch(batch)]).integer == 0)
        #expect(try await queue.queue.statistics().staged == 0)

        // and the next worker takes it over once the lease expires: the batch completes, each URL once
        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 8) { workers in
            let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(120))
            #expect(status.total == 1200 && status.completed == 1200, "\(status)\n\(workers.logs)")
            #expect(status.failed == 0 && status.dead == 0 && status.cancelled == 0)
            let events = try await queue.events(ofBatch: batch)
            let completed = events.filter { $0.kind == .completed }.compactMap(\.url)
            #expect(completed.count == 1200 && Set(completed) == Set(urls), "\(events.summary)")
            #expect(events.filter { $0.kind == .batchCompleted }.count == 1)
            #expect(try await queue.send(["EXISTS", slot, slot + ":urls", queue.queue.keys.parsingDocument]).integer == 0)
            #expect(try await queue.queue.deadLetters().isEmpty)
        }
    }

    @Test func anInvalidLargeDocumentIsDeadLetteredByTheWorkerWithTheExpansionsCodeAndMessage() async throws {
        // Given a batch, and a 1,200-URL document for it whose 701st URL is a number
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let batch = TestEnvironment.uniqueName("refused")
        try await queue.queue.pause()
        _ = try await queue.queue.enqueue(urls: ["http://127.0.0.1:9/one.jpg"], batchID: batch)
        var urls: [Any] = (0..<1200).map { "http://127.0.0.1:9/refused/\($0).jpg?pad=\(String(repeating: "x", count: 20))" }
        urls[700] = 700
        let document = try JSONSerialization.data(withJSONObject: ["v": 1, "batch": batch, "urls": urls] as [String: Any])
        try await queue.send(["RPUSH", queue.queue.keys.intake, String(decoding: document, as: UTF8.self)])

        // When a real worker takes it (claims expand intake even on a paused queue)
        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1) { workers in
            let dead = await eventuallyValue(timeout: .seconds(60)) { () async -> DeadLetter? in
                try? await queue.queue.deadLetters().first
            }

            // Then it is one dead letter with the code and message Redis gives it, and the batch heard of it
            let letter = try #require(dead, "no dead letter:\n\(workers.logs)")
            #expect(letter.error == "invalid_document" && letter.message == "urls[700] is not a URL string", "\(letter)")
            #expect(letter.fields["document"] == String(decoding: document.prefix(65536), as: UTF8.self))
            let events = try await queue.events(ofBatch: batch)
            #expect(events.filter { $0.kind == .deadLettered }.count == 1, "\(events.summary)")
            #expect(try await queue.queue.status(ofBatch: batch).total == 1)
            #expect(try await queue.send(["EXISTS", queue.queue.keys.parsingDocument]).integer == 0)
            #expect(workers[0].log.contains("intake document dead-lettered"))
        }
    }
}
