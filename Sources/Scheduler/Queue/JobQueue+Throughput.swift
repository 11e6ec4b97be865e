import RedisKit

extension JobQueue {
    /// The jobs the queue ended in each of the last `seconds` seconds (1–900),
    /// the current one included, by the Redis clock the queue scripts count
    /// with: completed, failed (failed or dead-lettered) and the bytes of
    /// the completed images. Seconds with no job end are zeros.
    public func throughput(seconds: Int = 900) async throws(SchedulerError) -> QueueThroughput {
        let seconds = min(max(1, seconds), QueueThroughput.maximumSeconds)
        let replies: [RedisReply]
        do {
            // The hash before the list: a second that moves from the hash to
            // the list in between is then read twice, and the list's (final)
            // counts win, rather than missed.
            replies = try await client.pipeline([
                ["TIME"], ["HGETALL", keys.metrics], ["LRANGE", keys.metricsSeconds, "0", String(seconds - 1)],
            ])
        } catch {
            throw .redis(error)
        }
        for case .error(let message) in replies { throw .redis(.server(message)) }
        guard replies.count == 3, let now = replies[0].array.first?.string.flatMap({ Int64($0) }) else {
            throw .redis(.unexpectedReply("throughput: \(replies)"))
        }
        let finished = replies[2].array.compactMap { $0.string.flatMap(QueueThroughput.point(entry:)) }
        let current = QueueThroughput.point(fields: replies[1].fieldDictionary)
        return .window(ending: now, seconds: seconds, counts: finished + (current.map { [$0] } ?? []))
    }
}
