import RedisKit

extension JobQueue {
    /// The counters of batch `id`.
    public func status(ofBatch id: String) async throws(SchedulerError) -> BatchStatus {
        let reply = try await send(["HGETALL", keys.batch(id)])
        guard let status = BatchStatus(fields: reply.fieldDictionary) else { throw .batchNotFound(id) }
        return status
    }

    /// Number of jobs waiting to be claimed.
    public func queuedCount() async throws(SchedulerError) -> Int {
        try await send(["ZCARD", keys.queue]).integer ?? 0
    }

    /// The queue's state now: jobs per state, intake backlog, pause, live workers.
    public func statistics() async throws(SchedulerError) -> QueueStatistics {
        let registry = WorkerRegistry(queue: self)
        var replies: [RedisReply]
        do {
            replies = try await client.pipeline([
                ["ZCARD", keys.queue], ["ZCARD", keys.leases], ["ZCARD", keys.delayed], ["ZCARD", keys.dead],
                ["LLEN", keys.intake], ["LLEN", keys.pendingIntake], ["HGET", keys.config, "paused"],
                registry.liveCountCommand, ["GET", keys.stagedURLs],
            ])
        } catch {
            throw .redis(error)
        }
        // The worker count's script is loaded by its first plain run.
        if replies.count == 9, case .error(let message) = replies[7], message.hasPrefix("NOSCRIPT") {
            replies[7] = .integer(try await registry.liveCount())
        }
        for case .error(let message) in replies { throw .redis(.server(message)) }
        let counts = replies.map { $0.integer ?? $0.string.flatMap { Int($0) } ?? 0 }
        guard counts.count == 9 else { throw .redis(.unexpectedReply("statistics: \(replies)")) }
        return QueueStatistics(queue: keys.name, queued: counts[0], active: counts[1], delayed: counts[2], dead: counts[3],
                               intake: counts[4] + counts[5], staged: counts[8], isPaused: replies[6].string == "1",
                               workers: counts[7])
    }
}
