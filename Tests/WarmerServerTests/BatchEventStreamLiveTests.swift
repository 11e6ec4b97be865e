import Foundation
import NIOCore
import RedisKit
import Scheduler
import Testing
import TestSupport
@testable import WarmerServer

/// A batch's Server-Sent Events from a live in-process server (on loopback;
/// the batch is posted through the router) over the test Redis: the stream is opened before
/// the batch's work, each event the test makes (claims and finishes through
/// `JobQueue`) arrives as a `text/event-stream` frame, and the stream ends
/// after `batchCompleted`, equal to `XRANGE` of the batch's Redis stream.
@Suite struct BatchEventStreamLiveTests {
    static let worker = "in-process-stream-worker"

    @Test func aBatchsEventsArriveAsFramesUntilItCompletes() async throws {
        let fixture = try InProcessServer(redis: true)
        defer { fixture.remove() }
        let name = TestEnvironment.uniqueName("serve-sse")
        let queue = try fixture.queue(name)
        let client = fixture.routedClient()
        try await fixture.live { port in
            let label = UUID().uuidString.prefix(8)
            let urls = (0..<3).map { #""https://images.example/\#(label)-\#($0).jpg""# }.joined(separator: ",")
            let created = try await client.send(.post, "/v1/queues/\(name)/batches", body: #"{"v":1,"batch":"live","urls":[\#(urls)]}"#)
            #expect(created.status == .created, "\(created)")

            let stream = try await RawConnection(port: port)
            let request = "GET /v1/queues/\(name)/batches/live/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(InProcessServer.readToken)\r\nConnection: close\r\n\r\n"
            let work = WorkSteps()
            let answer = try await stream.exchange(request) { received in
                let frames = ChunkedBody(received)
                // Once the stream is open (its opening comment), the batch's work happens,
                // one step each time the stream has shown the events of the last one.
                guard frames.body.contains("warmer event stream") else { return false }
                try await work.next(queue: queue, shownEvents: frames.events.count)
                return false
            }
            let parsed = ChunkedBody(answer)
            #expect(parsed.head.hasPrefix("HTTP/1.1 200"), "\(parsed.head)")
            #expect(parsed.head.lowercased().contains("content-type: text/event-stream"), "\(parsed.head)")
            #expect(parsed.body.hasPrefix("retry: 2000\n"), "\(parsed.body.prefix(200))")

            // The frames are the batch's Redis stream, in order, ending with batchCompleted
            let entries = try await queue.client.send(["XRANGE", queue.keys.batchEvents("live"), "-", "+"]).array
            let stored = entries.compactMap { entry -> JobEvent? in
                guard entry.array.count == 2, let id = entry.array[0].string else { return nil }
                return JobEvent(streamID: id, fields: entry.array[1].fieldDictionary)
            }
            let frames = parsed.events
            #expect(frames.map { $0["id"] } == stored.map(\.streamID), "\(parsed.body)")
            #expect(frames.map { $0["event"] } == stored.map(\.kind.rawValue), "\(parsed.body)")
            #expect(frames.map { $0["data"] } == stored.map(\.jsonLine), "\(parsed.body)")
            #expect(frames.last?["event"] == "batchCompleted", "\(parsed.body)")
            #expect(frames.filter { $0["event"] == "completed" }.count == 3, "\(parsed.body)")
            #expect(await work.stepsTaken == 3)
        }
    }
}

/// The batch's work, one job per step, each step taken once the stream
/// shows every event of the steps before it (so each event reaches an
/// already open stream).
actor WorkSteps {
    private(set) var stepsTaken = 0
    private var eventsAfterLastStep = 0

    /// Claims and completes one job when the stream shows more events than
    /// it did before the last step (or none was taken yet).
    func next(queue: JobQueue, shownEvents: Int) async throws {
        guard stepsTaken == 0 || shownEvents > eventsAfterLastStep else { return }
        eventsAfterLastStep = shownEvents
        guard let job = try await queue.claim(upTo: 1, worker: BatchEventStreamLiveTests.worker).first else { return }
        stepsTaken += 1
        try await queue.finish(job, outcome: .completed(source: "network", bytes: 100), worker: BatchEventStreamLiveTests.worker)
    }
}
