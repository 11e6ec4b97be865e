import Foundation
import RedisKit

extension JobQueue {
    /// A page of the queue's batches, newest first by creation time: up to
    /// `limit` (1–1,000) batches created before the `before` cursor (the
    /// `next` of the previous page; nil for the newest). A batch created
    /// while a client pages through is on no later page, and no batch is
    /// on two pages. Batches whose hash expired after the retention are left
    /// out (their index entries go when the next batch finishes). Reads at
    /// most `limit` index entries a round and 10 × `limit` + 100 in all.
    public func batches(limit: Int = 50, before cursor: String? = nil) async throws(SchedulerError) -> BatchPage {
        let limit = min(max(1, limit), BatchPage.maximumLimit)
        var after: (score: Int64, id: String)?
        if let cursor {
            guard let position = BatchPage.position(of: cursor) else { throw .invalidCursor(cursor) }
            after = position
        }
        let maximum = after.map { String($0.score) } ?? "+inf"
        var page: [BatchStatus] = []
        var offset = 0, budget = limit * 10 + 100
        var last = cursor
        while page.count < limit, budget > 0 {
            let count = min(limit - page.count, budget)
            let entries = try await send([
                "ZRANGE", keys.batches, maximum, "-inf", "BYSCORE", "REV", "LIMIT", String(offset), String(count), "WITHSCORES",
            ]).array.compactMap(\.string)
            offset += entries.count / 2
            // Batches created in the cursor's millisecond come in reverse id
            // order: those from the cursor's id up were on earlier pages.
            let listed: [(id: String, score: String)] = stride(from: 0, to: entries.count - 1, by: 2).map {
                (id: entries[$0], score: entries[$0 + 1])
            }
            let fresh = listed.filter { entry in
                guard let after, Int64(entry.score) == after.score else { return true }
                return entry.id < after.id
            }
            budget -= fresh.count
            let replies = try await pipeline(fresh.map { ["HGETALL", keys.batch($0.id)] })
            for (entry, reply) in zip(fresh, replies) {
                last = BatchPage.cursor(score: entry.score, id: entry.id)
                if let status = BatchStatus(fields: reply.fieldDictionary) { page.append(status) }
            }
            if entries.count / 2 < count { return BatchPage(batches: page, next: nil) }
        }
        return BatchPage(batches: page, next: last)
    }

    /// The failed and dead-lettered jobs of batch `id`, newest first: up to
    /// `limit` (1–1,000) of the last 1,000 the batch kept. Throws
    /// `batchNotFound` when the batch does not exist (or expired).
    public func failures(ofBatch id: String, limit: Int = 100) async throws(SchedulerError) -> [BatchFailure] {
        let limit = min(max(1, limit), 1_000)
        let replies = try await pipeline([["EXISTS", keys.batch(id)], ["LRANGE", keys.batchFailures(id), "0", String(limit - 1)]])
        guard replies.count == 2 else { throw .redis(.unexpectedReply("failures: \(replies)")) }
        guard replies[0].integer == 1 else { throw .batchNotFound(id) }
        let decoder = JSONDecoder()
        return replies[1].array.compactMap { entry in
            entry.string.flatMap { try? decoder.decode(BatchFailure.self, from: Data($0.utf8)) }
        }
    }

    /// The job `id`'s record; nil when there is no such job (or it expired).
    public func job(id: String) async throws(SchedulerError) -> JobRecord? {
        JobRecord(id: id, fields: try await send(["HGETALL", keys.job(id)]).fieldDictionary)
    }

    /// Sends `commands` in one pipeline; a command's error reply throws.
    private func pipeline(_ commands: [[String]]) async throws(SchedulerError) -> [RedisReply] {
        guard !commands.isEmpty else { return [] }
        let replies: [RedisReply]
        do {
            replies = try await client.pipeline(commands)
        } catch {
            throw .redis(error)
        }
        for case .error(let message) in replies { throw .redis(.server(message)) }
        return replies
    }
}
