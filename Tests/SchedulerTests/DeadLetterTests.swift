import Testing
@testable import Scheduler

/// The dead-letter set: list, retry, purge.
@Suite("Dead letters")
struct DeadLetterTests {
    private let worker = "test-worker"

    @Test func retryingAFailedJobRunsItAgainAndReopensItsBatch() async throws {
        // Given a finished batch with one failed job
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(2))
        let jobs = try await queue.claim(upTo: 2, worker: worker)
        try await queue.finish(jobs[0], outcome: .completed(source: "network", bytes: 1), worker: worker)
        try await queue.finish(jobs[1], outcome: .failed(code: "http_500", message: "boom"), worker: worker)
        #expect(try await queue.status(ofBatch: batch).isFinished)
        // When it is retried
        #expect(try await queue.retryDeadLetters([jobs[1].id]) == 1)
        // Then the batch is open again, the job is queued as new, and the dead-letter set is empty
        let reopened = try await queue.status(ofBatch: batch)
        #expect(!reopened.isFinished && reopened.failed == 0 && reopened.completed == 1)
        #expect(try await queue.deadLetterCount() == 0)
        let again = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        #expect(again.id == jobs[1].id && again.attempt == 1)
        try await queue.finish(again, outcome: .completed(source: "network", bytes: 1), worker: worker)
        let status = try await queue.status(ofBatch: batch)
        #expect(status.completed == 2 && status.isFinished && status.isSuccessful)
    }

    @Test func deadLettersListNewestFirstWithReasons() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(2))
        let jobs = try await queue.claim(upTo: 2, worker: worker)
        try await queue.finish(jobs[0], outcome: .deadLettered(code: "invalid_url", message: "Not an http(s) URL"), worker: worker)
        try await queue.finish(jobs[1], outcome: .failed(code: "http_404", message: "gone"), worker: worker)
        let dead = try await queue.deadLetters()
        #expect(dead.map(\.id) == [jobs[1].id, jobs[0].id])
        #expect(dead.map(\.state) == ["failed", "dead"] && dead.map(\.error) == ["http_404", "invalid_url"])
        #expect(dead[0].url == jobs[1].url && dead[0].batches == jobs[1].batches)
    }

    @Test func purgingDeletesEntriesForGood() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(3))
        for job in try await queue.claim(upTo: 3, worker: worker) {
            try await queue.finish(job, outcome: .failed(code: "http_404", message: "gone"), worker: worker)
        }
        let first = try await queue.deadLetters().last!.id
        #expect(try await queue.purgeDeadLetters([first]) == 1)
        #expect(try await queue.deadLetterCount() == 2)
        #expect(try await queue.client.send(["EXISTS", queue.keys.job(first)]).integer == 0)
        #expect(try await queue.purgeDeadLetters() == 2)
        #expect(try await queue.deadLetterCount() == 0)
    }

    @Test func deadLettersLastTheRetention() async throws {
        // Given a queue keeping what ended for one second, and a failed job
        let queue = try makeQueue { $0.retention = .seconds(1) }
        _ = try await queue.enqueue(urls: urls(3))
        let jobs = try await queue.claim(upTo: 3, worker: worker)
        try await queue.finish(jobs[0], outcome: .failed(code: "http_404", message: "gone"), worker: worker)
        // (-1 would mean "never expires"; -2, already expired on a slow machine)
        let expiry = try await queue.client.send(["PTTL", queue.keys.job(jobs[0].id)]).integer ?? -1
        #expect(expiry != -1 && expiry <= 1_000, "PTTL \(expiry)")
        // When a job fails more than the retention later
        try await Task.sleep(for: .milliseconds(1_200))
        try await queue.finish(jobs[1], outcome: .failed(code: "http_404", message: "gone"), worker: worker)
        // Then the old dead letter has left the set (and its hash has expired)
        #expect(try await queue.deadLetters().map(\.id) == [jobs[1].id])
        #expect(try await queue.client.send(["EXISTS", queue.keys.job(jobs[0].id)]).integer == 0)
    }

    @Test func aRetriedDeadLetterNoLongerExpires() async throws {
        // Given a dead letter, whose hash expires with the retention (a long
        // one: with one second, a loaded machine could let it lapse before
        // the retry, as it once did in a full run)
        let queue = try makeQueue { $0.retention = .seconds(600) }
        _ = try await queue.enqueue(urls: urls(1))
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        try await queue.finish(job, outcome: .failed(code: "http_404", message: "gone"), worker: worker)
        #expect((try await queue.client.send(["TTL", queue.keys.job(job.id)]).integer ?? -1) > 0)
        // When it is retried
        try await queue.retryDeadLetters([job.id])
        // Then it is live again: its hash no longer expires
        #expect(try await queue.client.send(["TTL", queue.keys.job(job.id)]).integer == -1)
    }
}
