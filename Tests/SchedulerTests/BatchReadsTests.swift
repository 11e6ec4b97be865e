import Foundation
import RedisKit
import Testing
import TestSupport
@testable import Scheduler

@Suite("Batch listing, failures and job records")
struct BatchReadsTests {
    let worker = "test-worker"

    /// Every batch id of the index, newest first, as one ZRANGE gives it.
    private func index(_ queue: JobQueue) async throws -> [String] {
        try await queue.client.send(["ZRANGE", queue.keys.batches, "+inf", "-inf", "BYSCORE", "REV"]).array.compactMap(\.string)
    }

    /// All pages of `limit` batches from the newest, running `between` after each page.
    private func allPages(_ queue: JobQueue, limit: Int, between: () async throws -> Void = {}) async throws -> [[String]] {
        var pages: [[String]] = []
        var cursor: String?
        repeat {
            let page = try await queue.batches(limit: limit, before: cursor)
            pages.append(page.batches.map(\.id))
            cursor = page.next
            try await between()
        } while cursor != nil && pages.count < 50
        return pages
    }

    @Test func pagesListEveryBatchOnceNewestFirstWhileNewBatchesArrive() async throws {
        // Given 7 batches
        let queue = try makeQueue()
        for index in 0..<7 { _ = try await queue.enqueue(urls: urls(1, "b\(index)")) }
        let before = try await index(queue)
        try #require(before.count == 7)

        // When it is read 3 at a time while a new batch arrives after each page
        var added: [String] = []
        let pages = try await allPages(queue, limit: 3) { added.append(try await queue.enqueue(urls: urls(1, "new"))) }

        // Then the pages hold the 7 batches, each once, newest first, and none of the new ones
        #expect(pages.map(\.count).prefix(2) == [3, 3])
        #expect(pages.flatMap { $0 } == before)
        #expect(Set(pages.flatMap { $0 }).isDisjoint(with: added))
        // and a new listing starts with the new ones
        let newest = try await queue.batches(limit: added.count).batches.map(\.id)
        #expect(Set(newest) == Set(added))
        #expect(newest == Array(try await index(queue).prefix(added.count)))
    }

    @Test func batchesCreatedInTheSameMillisecondAreEachListedOnce() async throws {
        // Given 5 batches whose index entries share one score (as older
        // versions scored batches created in one millisecond)
        let queue = try makeQueue()
        var ids: [String] = []
        for index in 0..<5 { ids.append(try await queue.enqueue(urls: urls(1, "t\(index)"))) }
        for id in ids { try await queue.client.send(["ZADD", queue.keys.batches, "1700000000000", id]) }

        // When they are read 2 at a time
        let pages = try await allPages(queue, limit: 2)

        // Then each comes once
        #expect(pages.flatMap { $0 }.sorted() == ids.sorted())
        #expect(pages.flatMap { $0 }.count == 5)
    }

    @Test func aBatchWhoseHashExpiredIsLeftOut() async throws {
        // Given 3 batches, the middle one's hash gone (expired after the retention)
        let queue = try makeQueue()
        var ids: [String] = []
        for index in 0..<3 { ids.append(try await queue.enqueue(urls: urls(1, "e\(index)"))) }
        let order = try await index(queue)
        try await queue.client.send(["DEL", queue.keys.batch(order[1])])

        // When the batches are listed, whole and one at a time
        let whole = try await queue.batches(limit: 10)
        let pages = try await allPages(queue, limit: 1)

        // Then the expired one is on neither
        #expect(whole.batches.map(\.id) == [order[0], order[2]])
        #expect(whole.next == nil)
        #expect(pages.flatMap { $0 } == [order[0], order[2]])
    }

    @Test func aCursorNoPageGaveIsRefused() async throws {
        let queue = try makeQueue()
        await #expect(throws: SchedulerError.invalidCursor("nope")) { try await queue.batches(limit: 5, before: "nope") }
    }

    @Test func aBatchsFailuresAreListedNewestFirstWithTheirReasonsAndMaskedURLs() async throws {
        // Given a batch of 3 URLs, one with a password
        let queue = try makeQueue()
        let secret = "https://user:hunter2@images.example/secret.jpg"
        let batch = try await queue.enqueue(urls: [secret] + urls(2))
        let jobs = try await queue.claim(upTo: 3, worker: worker)
        let byURL = Dictionary(uniqueKeysWithValues: jobs.map { ($0.url, $0) })

        // When one fails, one is dead-lettered and one completes
        let failed = try #require(byURL[secret]), dead = try #require(byURL[urls(2)[0]]), done = try #require(byURL[urls(2)[1]])
        try await queue.finish(failed, outcome: .failed(code: "http_404", message: "404 for \(secret)"), worker: worker)
        try await queue.finish(dead, outcome: .deadLettered(code: "invalid_url", message: "bad"), worker: worker)
        try await queue.finish(done, outcome: .completed(source: "network", bytes: 5), worker: worker)
        let failures = try await queue.failures(ofBatch: batch)

        // Then the two failures, newest first
        #expect(failures.map(\.job) == [dead.id, failed.id])
        #expect(failures.map(\.state) == ["dead", "failed"])
        #expect(failures.map(\.error) == ["invalid_url", "http_404"])
        #expect(failures[1].url == "https://user:***@images.example/secret.jpg")
        #expect(failures[1].message == "404 for https://user:***@images.example/secret.jpg")
        #expect(failures.allSatisfy { $0.at > 1_700_000_000_000 })
        #expect(try await queue.failures(ofBatch: batch, limit: 1).map(\.job) == [dead.id])
    }

    @Test func theFailureListKeepsTheNewest1000AndExpiresWithTheBatch() async throws {
        // Given a batch of 2 jobs whose failure list already holds 1,000 entries
        let queue = try makeQueue { $0.retention = .seconds(3600) }
        let batch = try await queue.enqueue(urls: urls(2))
        let filler = (0..<1_000).map { #"{"job":"old-\#($0)","url":"","state":"failed","error":"x","message":"","at":1}"# }
        try await queue.client.send(["RPUSH", queue.keys.batchFailures(batch)] + filler)
        let jobs = try await queue.claim(upTo: 2, worker: worker)

        // When one job fails (the batch is still running)
        try await queue.finish(jobs[0], outcome: .failed(code: "http_500", message: "HTTP 500"), worker: worker)

        // Then the list holds 1,000, the new failure first, and does not expire yet
        let key = queue.keys.batchFailures(batch)
        #expect(try await queue.client.send(["LLEN", key]).integer == 1_000)
        #expect(try await queue.failures(ofBatch: batch, limit: 1).first?.job == jobs[0].id)
        #expect(try await queue.client.send(["TTL", key]).integer == -1)

        // When the last job ends the batch
        try await queue.finish(jobs[1], outcome: .completed(source: "network", bytes: 1), worker: worker)

        // Then the list expires with the batch, after the retention
        let ttl = try #require(try await queue.client.send(["TTL", key]).integer)
        #expect(ttl > 0 && ttl <= 3600, "TTL \(ttl)")
        // (the same instant of expiry: two TTLs read a second apart would differ)
        let expiry = try await queue.client.send(["PEXPIRETIME", key]).integer
        #expect(try await queue.client.send(["PEXPIRETIME", queue.keys.batch(batch)]).integer == expiry)
    }

    @Test func theFailuresOfAnUnknownBatchAreRefused() async throws {
        let queue = try makeQueue()
        await #expect(throws: SchedulerError.batchNotFound("nobatch")) { try await queue.failures(ofBatch: "nobatch") }
    }

    @Test func aJobsRecordGivesItsStateBatchesAttemptAndReason() async throws {
        // Given a job with a password in its URL that failed for good
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: ["https://user:hunter2@images.example/a.jpg"], priority: .high)
        let job = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        try await queue.finish(job, outcome: .failed(code: "http_404", message: "HTTP 404"), worker: worker)

        // When its record is read
        let record = try #require(try await queue.job(id: job.id))

        // Then
        #expect(record.id == job.id && record.state == "failed")
        #expect(record.url == "https://user:***@images.example/a.jpg")
        #expect(record.batches == [batch])
        #expect(record.priority == "high" && record.destination == "disk" && record.processing == nil)
        #expect(record.attempt == 1 && record.error == "http_404" && record.message == "HTTP 404")
        #expect(record.worker == worker)
        #expect(record.enqueuedAt != nil && record.claimedAt != nil && record.finishedAt != nil)
        #expect(try await queue.job(id: "no-such-job") == nil)
    }
}
