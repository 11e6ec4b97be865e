import Testing
@testable import Scheduler

/// Pausing a queue and changing priorities of queued and running work.
@Suite("Queue control")
struct QueueControlTests {
    private let worker = "test-worker"

    @Test func aPausedQueueHandsOutNothingUntilResumed() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(2))
        let running = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        // When paused
        try await queue.pause()
        // Then nothing new is claimed, and running work can still finish
        #expect(try await queue.claim(upTo: 1, worker: worker).isEmpty)
        #expect(try await queue.statistics().isPaused)
        try await queue.finish(running, outcome: .completed(source: "network", bytes: 1), worker: worker)
        // When resumed, an idle worker wakes and claims
        let waiter = try await startIdleWait(on: queue)
        try await queue.resume()
        #expect(try await waiter.value)
        #expect(try await queue.claim(upTo: 1, worker: worker).count == 1)
    }

    @Test func raisingABatchsPriorityMovesItsQueuedJobsAhead() async throws {
        let queue = try makeQueue()
        let late = try await queue.enqueue(urls: urls(2, "late"), priority: .veryLow)
        _ = try await queue.enqueue(urls: urls(2, "normal"), priority: .normal)
        // When
        #expect(try await queue.setPriority(.veryHigh, ofBatch: late) == 2)
        // Then
        let claimed = try await queue.claim(upTo: 4, worker: worker)
        #expect(claimed.prefix(2).map(\.url) == urls(2, "late"))
        #expect(try await queue.status(ofBatch: late).priority == "veryHigh")
    }

    @Test func aLargeBatchsPriorityChangesInStepsNotInOneScriptCall() async throws {
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(1_500, "big"), priority: .veryLow)
        // One step of about 100 jobs changes part of the batch and says where to go on
        let step = try await queue.run(QueueScripts.priority, [batch, "high", "0", "100"]).array
        let first = step.first?.integer ?? 0
        #expect(step.count == 2 && step.last?.string != "0", "\(step)")
        #expect(first > 0 && first < 1_500, "one step changed \(first) of 1,500 jobs")
        // setPriority goes on step by step until every job is changed
        #expect(try await queue.setPriority(.high, ofBatch: batch, chunk: 100) == 1_500 - first)
        let claimed = try await queue.claim(upTo: 1_500, worker: worker)
        #expect(claimed.count == 1_500 && claimed.allSatisfy { $0.priority == "high" })
    }

    @Test func loweringABatchKeepsSharedJobsAtTheOtherBatchsPriority() async throws {
        let queue = try makeQueue()
        let a = try await queue.enqueue(urls: urls(1, "shared") + urls(1, "own"), priority: .high)
        _ = try await queue.enqueue(urls: urls(1, "shared"), priority: .high)
        // When batch a drops to veryLow
        #expect(try await queue.setPriority(.veryLow, ofBatch: a) == 1)
        // Then its own job drops, the shared one stays high
        let claimed = try await queue.claim(upTo: 2, worker: worker)
        #expect(claimed.map(\.priority) == ["high", "veryLow"])
    }

    @Test func aRunningJobsNewPriorityReachesItsWorker() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(1))
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        let control = ControlStream(queue: queue)
        let position = try await control.latestPosition()
        #expect(try await queue.setPriority(.veryHigh, ofJobs: [job.id]) == 1)
        let read = try await control.read(after: position, timeout: .milliseconds(100), using: makeClient())
        #expect(read.messages == [.priority(jobID: job.id, priority: .veryHigh)])
    }
}
