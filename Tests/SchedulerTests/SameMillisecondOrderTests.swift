import Foundation
import RedisKit
import Testing
@testable import Scheduler

/// "Newest first" when many entries share a millisecond of the Redis clock:
/// the batch index and the dead-letter set give each new entry a score above
/// every entry already there, so their order is the order of writing at any
/// speed, never the members' order.
@Suite("Order within one millisecond")
struct SameMillisecondOrderTests {
    private let worker = "test-worker"

    /// Every batch of the queue's listing, 7 a page, newest first.
    private func listing(_ queue: JobQueue) async throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        repeat {
            let page = try await queue.batches(limit: 7, before: cursor)
            ids += page.batches.map(\.id)
            cursor = page.next
        } while cursor != nil
        return ids
    }

    @Test func manyBatchesCreatedInOneBurstListNewestFirst() async throws {
        // Given 300 batches created by pipelined script calls, dozens in each
        // millisecond, their ids descending so that ordering ties by id
        // would list each millisecond's batches oldest first
        let queue = try makeQueue()
        let first = try await queue.enqueue(urls: urls(1, "first"), batchID: "zzzz")
        let created = (0..<300).map { String(format: "b%04d", 999 - $0) }
        let replies = try await queue.client.pipeline(created.map { batch in
            queue.evalCommand(QueueScripts.enqueue, [batch, "normal", "disk", "", "1", "", "", "", "https://images.example/\(batch).jpg"])
        })
        try #require(replies.allSatisfy { $0.array.first?.integer == 1 }, "\(replies.prefix(3))")

        // When the batches are listed a page at a time
        let listed = try await listing(queue)

        // Then they come exactly in reverse order of creation
        #expect(listed == created.reversed() + [first])
        // and the index scores them strictly increasing, from their creation time on
        let scores = try await queue.client.send(["ZMSCORE", queue.keys.batches] + [first] + created).array.compactMap { $0.string.flatMap { Int64($0) } }
        #expect(scores.count == 301 && zip(scores, scores.dropFirst()).allSatisfy { $0 < $1 })
        for (batch, score) in zip([first] + created, scores).prefix(20) {
            let createdAt = try #require(try await queue.status(ofBatch: batch).createdAt)
            #expect(score >= createdAt, "\(batch): score \(score) before createdAt \(createdAt)")
        }
    }

    @Test func aBatchCreatedAfterAnEntryScoredAheadOfTheClockListsFirst() async throws {
        // Given an index whose newest entry is scored a minute ahead of the
        // Redis clock (a failover to a server whose clock is behind)
        let queue = try makeQueue()
        let ahead = try await queue.enqueue(urls: urls(1, "ahead"))
        let time = try await queue.client.send(["TIME"]).array.compactMap(\.string)
        let now = try #require(Int64(time.first ?? "")) * 1000
        try await queue.client.send(["ZADD", queue.keys.batches, String(now + 60_000), ahead])

        // When two batches are created
        let older = try await queue.enqueue(urls: urls(1, "older"))
        let newer = try await queue.enqueue(urls: urls(1, "newer"))

        // Then they list first, newest first, each once
        #expect(try await listing(queue) == [newer, older, ahead])
        let page = try await queue.batches(limit: 1)
        #expect(page.batches.map(\.id) == [newer])
        #expect(try await queue.batches(limit: 5, before: page.next).batches.map(\.id) == [older, ahead])
    }

    @Test func deadLettersAndFailuresOfOneCallListNewestFirstAtTheirTime() async throws {
        // Given 12 jobs of one batch (ids 1…12: "9" sorts above "12")
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(12))
        let jobs = try await queue.claim(upTo: 12, worker: worker).sorted { Int($0.id)! < Int($1.id)! }
        try #require(jobs.count == 12)

        // When one call ends them all, failed, in id order (one Redis millisecond)
        let ends = jobs.map { JobEnd($0, .failed(code: "http_404", message: "gone \($0.id)")) }
        _ = try await queue.finish(ends, worker: worker, claimingNext: 0)

        // Then the dead letters list the last ended first
        let newestFirst = jobs.reversed().map(\.id)
        let dead = try await queue.deadLetters(limit: 12)
        #expect(dead.map(\.id) == newestFirst)
        #expect(try await queue.deadLetters(limit: 3).map(\.id) == Array(newestFirst.prefix(3)))
        // each at the time it ended (the call's), whatever its place in the order
        let finishedAt = try #require(dead.first?.fields["finishedAt"].flatMap { Int64($0) })
        #expect(dead.allSatisfy { $0.deadLetteredAt == finishedAt }, "\(dead.map(\.deadLetteredAt))")
        // and the batch's failures list them the same way
        #expect(try await queue.failures(ofBatch: batch, limit: 12).map(\.job) == newestFirst)
    }

    @Test func purgingAllDeadLettersTakesEveryEntryWrittenBeforeTheDocumentAndNoneAfter() async throws {
        // Given 6 dead letters of one call, one of them scored a minute ahead
        // of the Redis clock (a failover to a server whose clock is behind)
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(7))
        let jobs = try await queue.claim(upTo: 7, worker: worker)
        try #require(jobs.count == 7)
        _ = try await queue.finish(jobs.dropLast().map { JobEnd($0, .failed(code: "http_404", message: "gone")) }, worker: worker, claimingNext: 0)
        let time = try await queue.client.send(["TIME"]).array.compactMap(\.string)
        let now = try #require(Int64(time.first ?? "")) * 1000
        try await queue.client.send(["ZADD", queue.keys.dead, String(now + 60_000), jobs[0].id])

        // When a document purges all dead letters, 2 a step, and the 7th job
        // is dead-lettered after its first step
        try await queue.client.send(["RPUSH", queue.keys.commands, #"{"v":1,"op":"deadPurge","all":true,"id":"purge"}"#])
        var chunks = JobQueue.ControlDocumentChunks()
        chunks.deadLetters = 2
        var step = try await queue.applyControlDocumentStep(chunks: chunks)
        guard case .inProgress = step else { Issue.record("done in one step: \(step)"); return }
        _ = try await queue.finish([JobEnd(jobs[6], .failed(code: "http_404", message: "gone"))], worker: worker, claimingNext: 0)
        while case .inProgress = step { step = try await queue.applyControlDocumentStep(chunks: chunks) }

        // Then the 6 that were there went, and the one after the document stays
        guard case .applied(let fields) = step else { Issue.record("\(step)"); return }
        #expect(fields["purged"] == "6", "\(fields)")
        #expect(try await queue.deadLetters().map(\.id) == [jobs[6].id])
    }
}
