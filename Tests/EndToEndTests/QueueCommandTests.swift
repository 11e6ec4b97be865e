import Foundation
import Scheduler
import Testing
import TestSupport

/// The operator commands: status of a queue, pause/resume, priority, cancel, dead.
@Suite(.serialized)
struct QueueCommandTests {
    private func statistics(_ queue: QueueProbe) async throws -> [String: Any] {
        let result = try await warmer(["status"] + queue.redisArguments)
        try #require(result.status == 0, "\(result)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }

    @Test func pauseResumeAndStatusShowTheQueuesState() async throws {
        // Given a queue with three queued jobs
        let queue = try QueueProbe()
        _ = try await queue.enqueue([try Origin.url(path: "a.jpg"), try Origin.url(path: "b.jpg"), try Origin.url(path: "c.jpg")])
        // When it is paused
        let pause = try await warmer(["pause"] + queue.redisArguments)
        #expect(pause.status == 0, "\(pause)")
        // Then `warmer status` without a batch reports it
        var state = try await statistics(queue)
        #expect(state["queued"] as? Int == 3 && state["isPaused"] as? Bool == true, "\(state)")
        // When resumed
        let resume = try await warmer(["resume"] + queue.redisArguments)
        #expect(resume.status == 0, "\(resume)")
        state = try await statistics(queue)
        #expect(state["isPaused"] as? Bool == false, "\(state)")
    }

    @Test func priorityAndCancelActOnAQueuedBatch() async throws {
        // Given a veryLow batch behind a normal one
        let queue = try QueueProbe()
        let normal = try await queue.enqueue([try Origin.url(path: "n.jpg")])
        let late = try await queue.enqueue([try Origin.url(path: "l1.jpg"), try Origin.url(path: "l2.jpg")], priority: "veryLow")
        // When its priority is raised
        let raise = try await warmer(["priority"] + queue.redisArguments + ["veryHigh", "--batch", late])
        #expect(raise.status == 0 && raise.standardOutput.contains("2 job(s) now veryHigh"), "\(raise)")
        // Then its jobs are served first
        let first = try #require(try await queue.queue.claim(upTo: 1, worker: "probe").first)
        #expect(first.batches == [late])
        // When the normal batch is cancelled
        let cancel = try await warmer(["cancel"] + queue.redisArguments + [normal])
        #expect(cancel.status == 0 && cancel.standardOutput.contains("cancelled 1 job(s)"), "\(cancel)")
        let status = try await queue.queue.status(ofBatch: normal)
        #expect(status.cancelled == 1 && status.isFinished)
        // And an unknown batch is a clear error
        let unknown = try await warmer(["cancel"] + queue.redisArguments + ["no-such-batch"])
        #expect(unknown.status != 0 && unknown.standardError.contains("No batch 'no-such-batch'"), "\(unknown)")
    }

    @Test func deadListRetryAndPurge() async throws {
        // Given a malformed intake document and a failed job in the dead-letter set
        let queue = try QueueProbe()
        try await queue.send(["RPUSH", queue.queue.keys.intake, "{broken"])
        _ = try await queue.queue.enqueue(urls: [try Origin.url(path: "gone.jpg").absoluteString])
        for job in try await queue.queue.claim(upTo: 5, worker: "probe") {
            try await queue.queue.finish(job, outcome: .failed(code: "http_404", message: "gone"), worker: "probe")
        }
        // When listed
        let list = try await warmer(["dead", "list"] + queue.redisArguments)
        // Then each shows its id, error and subject
        #expect(list.status == 0 && list.outputLines.count == 2, "\(list)")
        #expect(list.standardOutput.contains("malformed_document\tdocument {broken"), "\(list)")
        let gone = try Origin.url(path: "gone.jpg").absoluteString
        #expect(list.standardOutput.contains("http_404\t\(gone)"), "\(list)")
        // When the failed job is retried by id, it is queued again
        let failedLine: String? = list.outputLines.first { $0.contains("http_404") }
        let jobID = try #require(failedLine?.split(separator: "\t").first.map { String($0) })
        let retry = try await warmer(["dead", "retry"] + queue.redisArguments + [jobID])
        #expect(retry.status == 0 && retry.standardOutput.contains("retried 1"), "\(retry)")
        #expect(try await queue.queue.queuedCount() == 1)
        // When the rest is purged, the set is empty
        let purge = try await warmer(["dead", "purge", "--all"] + queue.redisArguments)
        #expect(purge.status == 0 && purge.standardOutput.contains("purged 1"), "\(purge)")
        #expect(try await queue.queue.deadLetterCount() == 0)
        // And neither ids nor --all is a usage error
        let neither = try await warmer(["dead", "purge"] + queue.redisArguments)
        #expect(neither.status != 0, "\(neither)")
    }
}
