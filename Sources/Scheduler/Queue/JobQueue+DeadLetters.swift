import RedisKit

extension JobQueue {
    /// Dead-lettered entries, newest first: jobs that failed for good, could
    /// not run (invalid URL, processing, destination), stalled too often, and
    /// intake documents that did not parse or validate.
    public func deadLetters(limit: Int = 100) async throws(SchedulerError) -> [DeadLetter] {
        let ids = try await send(["ZREVRANGE", keys.dead, "0", String(max(0, limit - 1)), "WITHSCORES"]).array.compactMap(\.string)
        guard !ids.isEmpty else { return [] }
        let pairs: [(String, Int64)] = stride(from: 0, to: ids.count - 1, by: 2).map { (ids[$0], Int64(ids[$0 + 1]) ?? 0) }
        let replies: [RedisReply]
        do {
            replies = try await client.pipeline(pairs.map { ["HGETALL", keys.job($0.0)] })
        } catch {
            throw .redis(error)
        }
        // The score orders the set (one above the one before, within a
        // millisecond too); the job hash's `finishedAt` is the exact time.
        return zip(pairs, replies).map { pair, reply in
            let fields = reply.fieldDictionary
            return DeadLetter(id: pair.0, deadLetteredAt: fields["finishedAt"].flatMap { Int64($0) } ?? pair.1, fields: fields)
        }
    }

    /// Number of dead-lettered entries.
    public func deadLetterCount() async throws(SchedulerError) -> Int {
        try await send(["ZCARD", keys.dead]).integer ?? 0
    }

    /// Runs dead-lettered jobs again (all of them when `ids` is nil): each
    /// goes back to the queue as new and counts again in its batches; an
    /// intake document is pushed to the intake list again. Returns how many
    /// were retried.
    @discardableResult
    public func retryDeadLetters(_ ids: [String]? = nil) async throws(SchedulerError) -> Int {
        try await inChunks(QueueScripts.retryDead, ids)
    }

    /// Deletes dead-lettered entries for good (all of them when `ids` is nil).
    /// Returns how many were deleted.
    @discardableResult
    public func purgeDeadLetters(_ ids: [String]? = nil) async throws(SchedulerError) -> Int {
        try await inChunks(QueueScripts.purgeDead, ids)
    }

    /// Which of `ids` are not dead letters of this queue (never were, or
    /// were retried or purged since), in the order given.
    public func unknownDeadLetters(among ids: [String]) async throws(SchedulerError) -> [String] {
        guard !ids.isEmpty else { return [] }
        let scores = try await send(["ZMSCORE", keys.dead] + ids).array
        return zip(ids, scores).filter { $0.1 == .null }.map(\.0)
    }

    /// Runs a dead-letter script on `ids`, or on the whole set 1,000 entries per call.
    private func inChunks(_ script: QueueScript, _ ids: [String]?) async throws(SchedulerError) -> Int {
        if let ids {
            guard !ids.isEmpty else { return 0 }
            return try await run(script, ["0"] + ids).integer ?? 0
        }
        var total = 0
        while true {
            let count = try await run(script, ["1000"]).integer ?? 0
            total += count
            if count == 0 { return total }
        }
    }
}
