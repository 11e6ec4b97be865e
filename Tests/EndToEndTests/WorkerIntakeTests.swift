import Foundation
import Scheduler
import Testing
import TestSupport

/// Producers in any language: a JSON document RPUSHed to `warmer:{Q}:intake`
/// becomes a batch, whose events anyone can read with XREAD; input that does
/// not parse or validate is dead-lettered with its reason.
@Suite("Worker intake", .serialized)
struct WorkerIntakeTests {
    @Test func aDocumentPushedWithRedisCliIsWarmedAndObservableWithXREAD() async throws {
        // Given a worker and three images on the origin
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("intake", count: 3)
        let batch = TestEnvironment.uniqueName("intake-batch")

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            // When a producer pushes a batch document with redis-cli
            let document = try intakeDocument([
                "v": 1, "batch": batch, "urls": images.map(\.url.absoluteString), "priority": "normal", "destination": "disk",
            ])
            let push = try await redisCLI(url: queue.redisURL, ["RPUSH", queue.queue.keys.intake, document])
            #expect(push.status == 0 && Int(push.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) != nil,
                    "\(push)")

            // Then the batch finishes with its three URLs completed…
            let status = try await queue.waitUntilFinished(batch: batch)
            #expect(status.total == 3 && status.completed == 3, "\(status)\n\(workers.logs)")
            #expect(status.failed == 0 && status.dead == 0 && status.cancelled == 0, "\(status)")
            #expect(status.priority == "normal" && status.destination == "disk", "\(status)")

            // …and XREAD in redis-cli shows its events: three `completed`
            // (one per URL) and one `batchCompleted` that adds them up
            let key = queue.queue.keys.batchEvents(batch)
            let read = try await redisCLI(url: queue.redisURL, ["XREAD", "COUNT", "100", "STREAMS", key, "0"])
            #expect(read.status == 0, "\(read)")
            let entries = read.streamEntries.map(\.fields)
            let completed = entries.filter { $0["type"] == "completed" }
            #expect(completed.count == 3, "\(read)")
            #expect(Set(completed.compactMap { $0["url"] }) == Set(images.map(\.url.absoluteString)), "\(read)")
            #expect(Set(completed.compactMap { $0["job"] }).count == 3, "\(read)")
            #expect(entries.allSatisfy { $0["batch"] == batch }, "\(read)")
            let summaries = entries.filter { $0["type"] == "batchCompleted" }
            #expect(summaries.count == 1, "\(read)")
            #expect(summaries.first?["total"] == "3" && summaries.first?["completed"] == "3"
                    && summaries.first?["failed"] == "0", "\(read)")
            #expect(entries.last?["type"] == "batchCompleted", "the batch's last event: \(read)")

            // …and the cached files are byte for byte the origin's
            for image in images {
                let original = try image.contents()
                #expect((try? Data(contentsOf: cachedFile(for: image.url, in: cache))) == original,
                        "cache entry of \(image.url) differs from the origin")
            }
        }
    }

    @Test func malformedAndInvalidInputIsDeadLetteredWithReasonsAndTheWorkerCarriesOn() async throws {
        // Given a worker, an image, and a URL that is not http(s)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let made = try await Origin.makeImages("intake-bad", count: 2)
        let (good, later) = (made[0], made[1])
        let ftp = "ftp://example.com/a.jpg"
        let batch = TestEnvironment.uniqueName("valid")

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            // When a producer pushes a document that is not JSON, one without
            // URLs, and a valid one whose batch holds a good URL and the ftp one
            let malformed = "{not json"
            let withoutURLs = try intakeDocument(["v": 1, "batch": TestEnvironment.uniqueName("no-urls")])
            let valid = try intakeDocument(["v": 1, "batch": batch, "urls": [good.url.absoluteString, ftp]])
            let push = try await redisCLI(url: queue.redisURL, ["RPUSH", queue.queue.keys.intake, malformed, withoutURLs, valid])
            #expect(push.status == 0, "\(push)")

            // Then the valid batch finishes: the good URL completed, the ftp one dead
            let status = try await queue.waitUntilFinished(batch: batch)
            #expect(status.total == 2 && status.completed == 1 && status.dead == 1, "\(status)\n\(workers.logs)")
            #expect(status.failed == 0 && status.cancelled == 0, "\(status)")
            let events = try await queue.events(ofBatch: batch)
            let deadEvent = try #require(events.first { $0.kind == .deadLettered }, "\(events.summary)")
            #expect(deadEvent.url == ftp && deadEvent.fields["error"] == "invalid_url", "\(events.summary)")
            #expect(events.filter { $0.kind == .completed }.map(\.url) == [good.url.absoluteString], "\(events.summary)")

            // …the two documents wait in the dead-letter set as `doc-N`
            // entries, with their reasons and their text…
            _ = await eventually { ((try? await queue.queue.deadLetters()) ?? []).filter(\.isDocument).count >= 2 }
            let letters = try await queue.queue.deadLetters()
            let documents = letters.filter(\.isDocument)
            #expect(documents.count == 2, "\(letters)")
            #expect(documents.allSatisfy { $0.id.hasPrefix("doc-") && $0.state == "dead" && $0.message?.isEmpty == false },
                    "\(documents)")
            let notJSON = documents.first { $0.error == "malformed_document" }
            #expect(notJSON?.fields["document"] == malformed, "\(documents)")
            let invalid = documents.first { $0.error == "invalid_document" }
            #expect(invalid?.fields["document"] == withoutURLs, "\(documents)")
            #expect(invalid?.message?.contains("urls") == true, "\(documents)")

            // …each announced by a `deadLettered` event in the queue's stream
            let queueEvents = try await queue.queueEvents()
            let documentEvents = queueEvents.filter { $0.kind == .deadLettered && ($0.jobID ?? "").hasPrefix("doc-") }
            #expect(Set(documentEvents.compactMap(\.jobID)) == Set(documents.map(\.id)), "\(queueEvents.summary)")
            #expect(Set(documentEvents.compactMap { $0.fields["error"] }) == ["malformed_document", "invalid_document"],
                    "\(queueEvents.summary)")

            // …and the ftp job is dead-lettered too, as `invalid_url` in its batch
            let jobs = letters.filter { !$0.isDocument }
            #expect(jobs.count == 1, "\(letters)")
            #expect(jobs.first?.url == ftp && jobs.first?.error == "invalid_url" && jobs.first?.state == "dead", "\(jobs)")
            #expect(jobs.first?.batches == [batch], "\(jobs)")

            // When the worker, still running, gets another document
            try #require(workers[0].isRunning, "the worker exited:\n\(workers.logs)")
            let next = TestEnvironment.uniqueName("after-bad")
            let again = try await redisCLI(url: queue.redisURL, [
                "RPUSH", queue.queue.keys.intake, try intakeDocument(["v": 1, "batch": next, "urls": [later.url.absoluteString]]),
            ])
            #expect(again.status == 0, "\(again)")

            // Then it completes
            let nextStatus = try await queue.waitUntilFinished(batch: next)
            #expect(nextStatus.completed == 1 && nextStatus.total == 1, "\(nextStatus)\n\(workers.logs)")
            let original = try later.contents()
            #expect((try? Data(contentsOf: cachedFile(for: later.url, in: cache))) == original)
        }
    }
}

/// An intake document as a producer would write it: compact JSON, slashes unescaped.
private func intakeDocument(_ object: [String: Any]) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
}
