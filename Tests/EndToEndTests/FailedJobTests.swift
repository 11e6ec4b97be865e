import Foundation
import Scheduler
import Testing
import TestSupport

/// Acceptance 3: downloads that fail end as `failed` events, count as failed
/// in their batch, and do not stop the worker.
@Suite(.serialized)
struct FailedJobTests {
    @Test func a404AndARefusedConnectionFailTheirJobsAndTheWorkerCarriesOn() async throws {
        // Given a path the origin does not have and a port nothing listens on
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let missing = try Origin.missingURL()
        let unreachable = try #require(URL(string: "http://127.0.0.1:1/x.jpg"))
        let later = try await Origin.makeImages("after-failure", count: 1)[0]

        // (Two attempts per job, 200 ms apart, so the refused connection's
        // queue-level retry shows without a long wait.)
        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2,
                              arguments: ["--job-attempts", "2", "--retry-backoff", "0.2"]) { workers in
            // When a batch holds both URLs
            let batch = try await queue.enqueue([missing, unreachable])
            let status = try await queue.waitUntilFinished(batch: batch)

            // Then both jobs count as failed
            #expect(status.failed == 2, "\(status)\n\(workers.logs)")
            #expect(status.completed == 0 && status.dead == 0)

            // …each with a `failed` event saying why
            let events = try await queue.events(ofBatch: batch)
            let failed = Dictionary(events.filter { $0.kind == .failed }.map { ($0.url ?? "", $0) }) { first, _ in first }
            let notFound = try #require(failed[missing.absoluteString], "\(events.summary)")
            #expect(notFound.fields["error"] == "http_404")
            #expect(notFound.fields["message"]?.isEmpty == false)
            let refused = try #require(failed[unreachable.absoluteString], "\(events.summary)")
            #expect(refused.fields["error"] == "transport")
            #expect(refused.fields["message"]?.isEmpty == false)
            #expect(!events.contains { $0.kind == .completed })

            // …the refused connection (transient) ran twice, with a `delayed`
            // event between the attempts; the 404 (permanent) ran once
            let delayed = events.filter { $0.kind == .delayed }
            #expect(delayed.map(\.url) == [unreachable.absoluteString], "\(events.summary)")
            #expect(delayed.first?.fields["error"] == "transport" && delayed.first?.fields["retry_in_ms"] != nil)
            #expect(refused.fields["attempt"] == "2" && notFound.fields["attempt"] == "1", "\(events.summary)")

            // …and both wait in the dead-letter set with their reasons
            let dead = try await queue.queue.deadLetters()
            #expect(Set(dead.compactMap(\.url)) == [missing.absoluteString, unreachable.absoluteString])
            #expect(Set(dead.compactMap(\.error)) == ["http_404", "transport"])

            // …`warmer watch` reports the batch as unsuccessful
            let watch = try await warmer(["watch"] + queue.redisArguments + ["--batch", batch])
            #expect(watch.exited && watch.status == 1, "\(watch)")

            // …and nothing was cached for them
            #expect(!FileManager.default.fileExists(atPath: cachedFile(for: missing, in: cache).path))

            // When a second batch arrives at the same worker
            try #require(workers[0].isRunning, "the worker exited:\n\(workers.logs)")
            let second = try await queue.enqueue([later.url])
            let secondStatus = try await queue.waitUntilFinished(batch: second)

            // Then it completes
            #expect(secondStatus.completed == 1, "\(secondStatus)\n\(workers.logs)")
            let original = try later.contents()
            #expect((try? Data(contentsOf: cachedFile(for: later.url, in: cache))) == original)
        }
    }
}
