import Foundation
import Testing
import TestSupport
@testable import Scheduler

@Suite("EventStream")
struct EventStreamTests {
    @Test func publishedEventsReachTheQueueAndBatchStreamsInOrder() async throws {
        let queue = try makeQueue()
        let stream = EventStream(queue: queue)
        let job = Job(id: "7", url: "https://images.example/a.jpg", batches: ["b1"], priority: "normal",
                      destination: "disk", attempt: 1, leaseToken: "w/1")
        // When
        try await stream.publish(JobEvent(.started, job: job, worker: "w"))
        try await stream.publish(JobEvent(.progress, job: job, worker: "w", extra: ["bytes": "100", "total": "300"]))
        // Then
        let reader = try makeClient()
        let batchEvents = try await stream.read(batch: "b1", after: .beginning, timeout: .milliseconds(100), using: reader)
        let queueEvents = try await stream.read(after: .beginning, timeout: .milliseconds(100), using: reader)
        #expect(batchEvents.map(\.kind) == [.started, .progress])
        #expect(queueEvents.map(\.kind) == [.started, .progress])
        #expect(batchEvents[1].bytes == 100 && batchEvents[1].fields["total"] == "300")
        #expect(batchEvents[0].fields["v"] == "1" && batchEvents[0].url == job.url && batchEvents[0].jobID == "7")
    }

    @Test func readingFromAPositionReturnsOnlyLaterEvents() async throws {
        let queue = try makeQueue()
        let stream = EventStream(queue: queue)
        let job = Job(id: "1", url: "u", batches: ["b"], priority: "normal", destination: "disk", attempt: 1, leaseToken: "t")
        try await stream.publish(JobEvent(.started, job: job, worker: "w"))
        let reader = try makeClient()
        let first = try await stream.read(after: .beginning, timeout: .milliseconds(100), using: reader)
        try await stream.publish(JobEvent(.progress, job: job, worker: "w", extra: ["bytes": "5"]))
        let next = try await stream.read(after: .after(try #require(first.last?.streamID)), timeout: .milliseconds(100), using: reader)
        #expect(next.map(\.kind) == [.progress])
    }

    @Test func readingAfterTheStreamsEndGivesEveryEventPublishedSinceHoweverLateTheRead() async throws {
        // Given an empty queue stream: its end is its beginning
        let queue = try makeQueue()
        let stream = EventStream(queue: queue)
        #expect(try await stream.end() == .beginning)
        let job = Job(id: "1", url: "u", batches: ["b"], priority: "normal", destination: "disk", attempt: 1, leaseToken: "t")
        try await stream.publish(JobEvent(.started, job: job, worker: "w"))

        // When its end is taken, then two events are published before any read
        let end = try await stream.end()
        try await stream.publish(JobEvent(.progress, job: job, worker: "w", extra: ["bytes": "5"]))
        try await stream.publish(JobEvent(.completed, job: job, worker: "w", extra: ["bytes": "9"]))

        // Then a read after the end returns both, and nothing before them
        let events = try await stream.read(after: end, timeout: .milliseconds(100), using: makeClient())
        #expect(events.map(\.kind) == [.progress, .completed])
    }

    @Test func oneReadOfSeveralStreamsGivesEachStreamItsOwnEventsFromItsOwnPosition() async throws {
        // Given events of two batches, and an entry of a type no reader knows in a third
        let queue = try makeQueue()
        let stream = EventStream(queue: queue)
        let first = Job(id: "1", url: "u1", batches: ["b1"], priority: "normal", destination: "disk", attempt: 1, leaseToken: "t")
        let second = Job(id: "2", url: "u2", batches: ["b2"], priority: "normal", destination: "disk", attempt: 1, leaseToken: "t")
        try await stream.publish(JobEvent(.started, job: first, worker: "w"))
        try await stream.publish(JobEvent(.started, job: second, worker: "w"))
        try await stream.publish(JobEvent(.completed, job: second, worker: "w", extra: ["bytes": "9"]))
        let unknown = try await queue.send(["XADD", queue.keys.batchEvents("b3"), "*", "v", "1", "type", "fromTheFuture"])
        let secondStarted = try #require(try await stream.range(batch: "b2", after: "0").first?.streamID)

        // When one read names the three batches (b2 after its first event) and an idle queue stream position
        let queueEnd = try await stream.end()
        let pages = try await stream.read(
            after: ["b1": .beginning, "b2": .after(secondStarted), "b3": .beginning, nil: queueEnd],
            timeout: .milliseconds(100), using: makeClient())

        // Then each stream has its own events, after its own position; the idle one is left out
        #expect(pages["b1"]?.events.map(\.kind) == [.started])
        #expect(pages["b2"]?.events.map(\.kind) == [.completed])
        #expect(pages.keys.contains(nil) == false)
        // and an entry of an unknown type moves its stream's position without an event
        #expect(pages["b3"]?.events.isEmpty == true)
        #expect(pages["b3"]?.lastID == unknown.string && pages["b3"]?.entryCount == 1)
    }

    @Test func aBlockingReadReturnsEmptyOnTimeout() async throws {
        let events = try await EventStream(queue: makeQueue()).read(after: .now, timeout: .milliseconds(100), using: makeClient())
        #expect(events.isEmpty)
    }

    @Test func streamsAreTrimmed() async throws {
        let queue = try makeQueue { $0.maximumEvents = 100; $0.maximumBatchEvents = 100 }
        let stream = EventStream(queue: queue)
        let job = Job(id: "1", url: "u", batches: ["b"], priority: "normal", destination: "disk", attempt: 1, leaseToken: "t")
        for _ in 0..<1_000 { try await stream.publish(JobEvent(.progress, job: job, worker: "w", extra: ["bytes": "1"])) }
        let length = try await queue.client.send(["XLEN", queue.keys.events]).integer ?? 0
        #expect(length < 1_000)
        #expect(length >= 100)
    }

    /// Found by the partition proof: a worker cut off from Redis published
    /// `progress` for jobs another worker had taken over once it was back.
    @Test func aWorkersEventOfAJobIsPublishedOnlyWhileItHoldsTheLease() async throws {
        // Given a job claimed by worker w1
        let queue = try makeQueue()
        let stream = EventStream(queue: queue)
        let batch = try await queue.enqueue(urls: ["https://images.example/lease.jpg"])
        let job = try #require(try await queue.claim(upTo: 1, worker: "w1").first)

        // When w1 publishes progress while it holds the lease, then after another claim took it over
        let whileHeld = try await stream.publish(.progress, of: job, worker: "w1", extra: ["bytes": "10"])
        try await queue.client.send(["HSET", queue.keys.job(job.id), "lease", "w2/2"])
        let afterLoss = try await stream.publish(.progress, of: job, worker: "w1", extra: ["bytes": "20"])

        // Then only the first reached the batch's stream
        #expect(whileHeld && !afterLoss)
        let events = try await stream.read(batch: batch, after: .beginning, timeout: .milliseconds(100), using: makeClient())
        #expect(events.filter { $0.kind == .progress }.map(\.bytes) == [10], "\(events.map(\.fields))")
    }

    @Test func jsonLinesCarryNumbersAsNumbers() throws {
        let event = try #require(JobEvent(streamID: "1-0", fields: ["type": "completed", "bytes": "42", "url": "u", "v": "1"]))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(event.jsonLine.utf8)) as? [String: Any])
        #expect(object["bytes"] as? Int == 42)
        #expect(object["type"] as? String == "completed")
        #expect(object["id"] as? String == "1-0")
    }
}
