import Foundation
import Testing
import TestSupport

/// Issue 23, V5: one reader cannot hold every event-stream place. Past
/// `max-event-streams-per-token` its next stream is refused 429 with
/// `Retry-After`, while another token's streams are still served; a client
/// that leaves gives its place back at once, not at the next keep-alive;
/// and however many streams of a queue are open, `serve` reads them over
/// one Redis connection.
@Suite("Serve event stream fairness")
struct ServeEventStreamFairnessTests {
    @Test func oneTokenHoldsAtMostItsShareOfTheStreams() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, arguments: ["--max-event-streams", "10", "--max-event-streams-per-token", "2"]) { serve in
            // Given two streams open with the read token
            let path = "/v1/queues/\(queue.name)/events"
            let open = try (0..<2).map { _ in try serve.events(path) }
            for client in open { #expect(try await client.status() == 200) }

            // Then its third is refused with 429 too_many_streams and Retry-After
            let third = try await serve.events(path).end()
            #expect(third.status == 429, "\(third.body)")
            #expect(third.headers["retry-after"].flatMap(Int.init).map { $0 > 0 } == true, "\(third.headers)")
            #expect(third.body.contains("too_many_streams") && third.body.contains("max-event-streams-per-token"), "\(third.body)")

            // And another token's stream is served meanwhile
            let admin = try EventStreamClient(port: serve.port, path: path, headers: ["Authorization": "Bearer \(ServeProcess.adminToken)"])
            #expect(try await admin.status() == 200)
            for client in open + [admin] { client.close() }
        }
    }

    @Test func aClientThatLeavesGivesItsPlaceBackBeforeTheNextKeepAlive() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, arguments: ["--max-event-streams", "2", "--event-keep-alive", "25"]) { serve in
            // Given both places taken, one of them by a client that then leaves
            let path = "/v1/queues/\(queue.name)/events"
            let leaving = try serve.events(path)
            let staying = try serve.events(path)
            for client in [leaving, staying] { #expect(try await client.status() == 200) }
            leaving.close()

            // Then a new stream is accepted before the server writes its next
            // keep-alive (which the staying client would see): the server
            // noticed the hang-up itself, not by failing to write to it
            // (each try is a new request; the harness's poll paces them, the keep-alive ends the wait)
            enum Outcome { case accepted(EventStreamClient), keptAliveFirst }
            let outcome = await eventuallyValue(timeout: .seconds(120), pollingEvery: .milliseconds(100)) { () -> Outcome? in
                if staying.snapshot.comments.contains("keep-alive") { return .keptAliveFirst }
                guard let candidate = try? serve.events(path), let status = try? await candidate.status() else { return nil }
                if status == 200 { return .accepted(candidate) }
                _ = try? await candidate.end()
                return nil
            }
            guard case .accepted(let accepted) = outcome else {
                Issue.record("the place came back only with the keep-alive: \(staying.snapshot.comments)")
                staying.close()
                return
            }
            for client in [accepted, staying] { client.close() }
        }
    }

    @Test func streamsOfManyBatchesShareOneRedisConnectionAndEachGetsItsOwnEvents() async throws {
        // Given 40 one-image batches, each with a client following it, and one following the queue
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("sse-batches", count: 40)
        try await withServe(queue: queue) { serve in
            var batches: [String] = []
            for image in images { batches.append(try await serve.postBatch([image.url], queue: queue)) }
            let watchers = try batches.map { try serve.events("/v1/queues/\(queue.name)/batches/\($0)/events") }
            let queueWatcher = try serve.events("/v1/queues/\(queue.name)/events")
            for watcher in watchers + [queueWatcher] { #expect(try await watcher.status() == 200) }

            // Then serve reads all 41 streams with one blocking XREAD, on one connection
            let readers = await eventuallyValue { () -> [String]? in
                guard let ports = try? await serve.connectionPorts(),
                      let readers = try? await queue.xreadClients(of: ports), !readers.isEmpty else { return nil }
                return readers
            }
            #expect(readers?.count == 1, "XREAD connections of serve: \(readers ?? [])")

            // And when a worker warms the batches, each client gets exactly its batch's stream, up to batchCompleted
            try await withWorkers(queue: queue, cacheDirectory: cache) { workers in
                for batch in batches {
                    let status = try await queue.waitUntilFinished(batch: batch)
                    #expect(status.completed == 1, "\(status)\n\(workers.logs)")
                }
                for (batch, watcher) in zip(batches, watchers) {
                    let received = try await watcher.end().events.map(StreamEntry.init)
                    let expected = try await queue.streamEntries(queue.queue.keys.batchEvents(batch))
                    #expect(received == expected, "batch \(batch)")
                    #expect(received.last?.type == "batchCompleted", "\(received)")
                }
            }
            let completions = await queueWatcher.wait { $0.events.filter { $0.type == "batchCompleted" }.count == batches.count }
            #expect(completions != nil, "the queue's stream: \(queueWatcher.snapshot.events)")
            queueWatcher.close()
        }
    }
}
