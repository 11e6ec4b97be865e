import Foundation
import Testing
import TestSupport

/// `warmer serve`'s Server-Sent Event streams (docs/http-api.md, "Event
/// streams") against real workers warming real images: every event of a
/// batch's Redis stream, in order, once, across reconnections; the queue's
/// stream from now; keep-alive comments; the refusals; one shared reader.
@Suite(.serialized)
struct ServeEventStreamTests {
    @Test func batchStreamDeliversEveryEventOfTheBatchInOrderAndEndsAfterBatchCompleted() async throws {
        // Given a batch of four images posted over HTTP, and a client
        // following its stream before any worker runs
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("sse-batch", count: 4)
        try await withServe(queue: queue) { serve in
            let batch = try await serve.postBatch(images.map(\.url), queue: queue)
            let client = try serve.events("/v1/queues/\(queue.name)/batches/\(batch)/events")
            #expect(try await client.status() == 200)
            #expect(client.snapshot.headers["content-type"]?.hasPrefix("text/event-stream") == true)

            // When a real worker warms it
            let received = try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
                let status = try await queue.waitUntilFinished(batch: batch)
                #expect(status.completed == 4, "\(status)\n\(workers.logs)")
                return try await client.end()
            }

            // Then the stream delivered exactly the batch's Redis stream, in
            // order, and the response ended with batchCompleted
            let expected = try await queue.streamEntries(queue.queue.keys.batchEvents(batch))
            #expect(received.events.map(StreamEntry.init) == expected)
            #expect(received.events.last?.type == "batchCompleted")
            #expect(received.events.filter { $0.type == "completed" }.count == 4, "\(received.events)")
            #expect(received.events.allSatisfy { $0.data.contains("\"batch\":\"\(batch)\"") }, "\(received.body)")
        }
    }

    @Test func reconnectingWithLastEventIDLosesAndRepeatsNothing() async throws {
        // Given a batch of three slow images (about 2.5 s each at 100 KB/s)
        // warmed one at a time
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("sse-resume", count: 3, width: 600, height: 600, slow: true)
        try await withServe(queue: queue) { serve in
            let batch = try await serve.postBatch(images.map(\.url), queue: queue)
            let key = queue.queue.keys.batchEvents(batch)
            try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1) { workers in
                // When a client disconnects part-way through the batch
                let first = try serve.events("/v1/queues/\(queue.name)/batches/\(batch)/events")
                let partway = await first.wait { $0.events.contains { $0.type == "progress" } || $0.ended }
                #expect(partway?.events.contains { $0.type == "batchCompleted" } == false,
                        "the batch ended before the disconnection: \(partway?.events ?? [])")
                first.close()
                let before = try await first.end().events
                let lastID = try #require(before.last?.id, "no event before the disconnection")

                // and events go on meanwhile
                let grew = await eventually { (try? await queue.streamEntries(key).count).map { $0 > before.count + 1 } ?? false }
                #expect(grew, "no event after the disconnection:\n\(workers.logs)")

                // and reconnects with the last id it received
                let second = try serve.events("/v1/queues/\(queue.name)/batches/\(batch)/events", lastEventID: lastID)
                let after = try await second.end().events

                // Then both connections together are the stream, exactly
                let expected = try await queue.streamEntries(key)
                #expect((before + after).map(StreamEntry.init) == expected,
                        "before: \(before)\nafter: \(after)\nstream: \(expected)")
                #expect(after.first?.id != lastID)
                #expect(after.last?.type == "batchCompleted")
            }
        }
    }

    @Test func queueStreamDeliversEventsOfABatchEnqueuedAfterConnecting() async throws {
        // Given a client following the queue's stream from now
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("sse-queue", count: 3)
        try await withServe(queue: queue) { serve in
            let client = try serve.events("/v1/queues/\(queue.name)/events")
            #expect(try await client.status() == 200)

            // When a batch is posted and warmed afterwards
            let batch = try await serve.postBatch(images.map(\.url), queue: queue)
            try await withWorkers(queue: queue, cacheDirectory: cache) { workers in
                let status = try await queue.waitUntilFinished(batch: batch)
                #expect(status.completed == 3, "\(status)\n\(workers.logs)")
                // Then its events arrive, up to its batchCompleted
                let done = await client.wait { $0.events.contains { $0.type == "batchCompleted" } }
                #expect(done != nil, "no batchCompleted on the queue's stream: \(client.snapshot.events)")
            }
            client.close()
            let received = try await client.end().events

            // exactly as the queue's Redis stream has them (the queue is the test's own)
            let expected = try await queue.streamEntries(queue.queue.keys.events)
            let lastID = try #require(received.last?.id)
            let upTo = try #require(expected.firstIndex { $0.id == lastID }, "\(lastID) is not in the queue's stream")
            #expect(received.map(StreamEntry.init) == Array(expected[...upTo]))
            #expect(received.filter { $0.type == "completed" }.count == 3, "\(received)")
        }
    }

    @Test func idleStreamGetsKeepAliveComments() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, arguments: ["--event-keep-alive", "1"]) { serve in
            // Given a stream of a queue where nothing happens
            let client = try serve.events("/v1/queues/\(queue.name)/events")
            #expect(try await client.status() == 200)
            // Then keep-alive comments arrive, and no event
            let kept = await client.wait { $0.comments.filter { $0 == "keep-alive" }.count >= 2 }
            #expect(kept != nil, "comments: \(client.snapshot.comments)")
            #expect(client.snapshot.events.isEmpty)
            client.close()
        }
    }

    @Test func unknownBatchAndMalformedLastEventIDAreProblems() async throws {
        let queue = try QueueProbe()
        let images = try await Origin.makeImages("sse-problems", count: 1)
        try await withServe(queue: queue) { serve in
            // An unknown batch: 404 problem
            let unknown = try serve.events("/v1/queues/\(queue.name)/batches/no-such-batch/events")
            let missing = try await unknown.end()
            #expect(missing.status == 404, "\(missing.body)")
            #expect(missing.headers["content-type"]?.hasPrefix("application/problem+json") == true, "\(missing.headers)")
            #expect(missing.body.contains("\"status\":404"), "\(missing.body)")

            // A Last-Event-ID that is not a stream id: 400 problem, on both streams
            let batch = try await serve.postBatch(images.map(\.url), queue: queue)
            for path in ["/v1/queues/\(queue.name)/batches/\(batch)/events", "/v1/queues/\(queue.name)/events"] {
                let malformed = try await serve.events(path, lastEventID: "yesterday").end()
                #expect(malformed.status == 400, "\(path): \(malformed.body)")
                #expect(malformed.headers["content-type"]?.hasPrefix("application/problem+json") == true)
            }
        }
    }

    @Test func streamsPastMaxEventStreamsAreRefusedWithRetryAfterUntilOneCloses() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, arguments: ["--max-event-streams", "2", "--event-keep-alive", "1"]) { serve in
            // Given two open streams, the limit
            let path = "/v1/queues/\(queue.name)/events"
            let open = try (0..<2).map { _ in try serve.events(path) }
            for client in open { #expect(try await client.status() == 200) }

            // Then a third is refused with 503 too_many_streams and Retry-After
            let third = try await serve.events(path).end()
            #expect(third.status == 503, "\(third.body)")
            #expect(third.headers["retry-after"].flatMap(Int.init).map { $0 > 0 } == true, "\(third.headers)")
            #expect(third.body.contains("too_many_streams"), "\(third.body)")

            // And once one closes, a new one is accepted
            open[0].close()
            let accepted = await eventuallyValue(timeout: .seconds(20), pollingEvery: .milliseconds(200)) { () -> EventStreamClient? in
                guard let client = try? serve.events(path), let status = try? await client.status() else { return nil }
                if status == 200 { return client }
                client.close()
                return nil
            }
            #expect(accepted != nil, "no stream accepted after one closed")
            accepted?.close()
            open[1].close()
        }
    }

    @Test func manyWatchersOfOneBatchShareOneRedisReaderAndGetTheSameEvents() async throws {
        // Given a batch of slow images, so that it runs while 50 clients connect
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("sse-many", count: 2, width: 600, height: 600, slow: true)
        try await withServe(queue: queue) { serve in
            let batch = try await serve.postBatch(images.map(\.url), queue: queue)
            let path = "/v1/queues/\(queue.name)/batches/\(batch)/events"
            let watchers = try (0..<50).map { _ in try serve.events(path) }
            for watcher in watchers { #expect(try await watcher.status() == 200) }

            // Then Redis serves one XREAD connection for them from the serve
            // process (RedisClient names no connection: they are told apart
            // by the serve process's own socket ports)
            let readers = await eventuallyValue { () -> [String]? in
                guard let ports = try? await serve.connectionPorts(),
                      let readers = try? await queue.xreadClients(of: ports), !readers.isEmpty else { return nil }
                return readers
            }
            #expect(readers?.count == 1, "XREAD connections of serve: \(readers ?? [])")
            // and only one, also a moment later
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await queue.xreadClients(of: serve.connectionPorts()).count == 1)

            // When a worker warms the batch, every watcher gets the same whole stream
            try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
                let status = try await queue.waitUntilFinished(batch: batch)
                #expect(status.completed == 2, "\(status)\n\(workers.logs)")
                let expected = try await queue.streamEntries(queue.queue.keys.batchEvents(batch))
                for (index, watcher) in watchers.enumerated() {
                    let received = try await watcher.end().events.map(StreamEntry.init)
                    #expect(received == expected, "watcher \(index): \(received)\nstream: \(expected)")
                }
            }
        }
    }

    @Test func aStopSignalEndsOpenStreamsAndTheServerExitsCleanly() async throws {
        let queue = try QueueProbe()
        let serve = try await ServeProcess(queue: queue)
        // Given an event stream and a summary stream open
        let events = try serve.events("/v1/queues/\(queue.name)/events")
        let summary = try serve.events("/v1/queues/\(queue.name)/summary")
        #expect(try await events.status() == 200)
        #expect(await summary.wait { $0.events.contains { $0.type == "summary" } } != nil, "\(summary.snapshot)")
        // When the server gets SIGTERM
        let stopped = await serve.stop()
        // Then it exits 0 (a SIGKILL would have come after 10 s), and both responses ended
        #expect(stopped?.exited == true && stopped?.status == 0, "\(stopped.map { "\($0)" } ?? "killed"): \(serve.log.suffix(2000))")
        #expect(try await events.end(timeout: .seconds(5)).ended)
        #expect(try await summary.end(timeout: .seconds(5)).ended)
    }
}
