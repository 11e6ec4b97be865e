import Foundation
import RedisKit

extension JobQueue {
    /// Adds `urls` as jobs of a batch and returns the batch id.
    ///
    /// A URL whose work (same URL, destination and processing) is already
    /// queued or running for another batch is not queued again: the running
    /// job counts in this batch too, at the higher of the two priorities.
    /// Large batches go in chunks of `enqueueChunkSize`, each one atomic
    /// script call; the batch's total grows by the whole count with the
    /// first, so it cannot finish early. The chunks after the first are
    /// pipelined, so Redis works while the next ones are on their way.
    ///
    /// - Parameters:
    ///   - batchID: a batch to create or append to; a new random id when `nil`.
    ///   - group: the group the new jobs are queued in (a tenant, a service),
    ///     served round-robin with the other groups of their priority;
    ///     `nil` for the batch's own. Same characters as a batch id.
    ///   - timeout: the jobs' time limit, whole seconds in `timeoutRange`
    ///     (the intake document's `timeout`); `nil` for each worker's own
    ///     (`--job-timeout`). A URL that joins a live job does not change it.
    ///   - freshFor: whole seconds in `freshForRange` (the intake document's
    ///     `freshFor`): a URL whose work any worker completed this recently
    ///     counts as `completed` at once, with source `recent`, and no job is
    ///     made (docs/wire-format.md, "Recently warmed URLs"); `nil` for none.
    /// - Throws: `SchedulerError.incompleteEnqueue` when a chunk after the
    ///   first fails; any other error means nothing was enqueued, or — for a
    ///   broken connection (`RedisError.connection`) — maybe the first chunk.
    public func enqueue(
        urls: [String], priority: JobPriority = .normal, destination: JobDestination = .disk,
        processing: String = "", batchID: String? = nil, timeout: Duration? = nil, group: String? = nil,
        freshFor: Duration? = nil
    ) async throws(SchedulerError) -> String {
        guard !urls.isEmpty else { throw .emptyBatch }
        let batch = batchID ?? Self.makeBatchID()
        guard Self.isValidBatchID(batch) else { throw .invalidBatchID(batch) }
        if let group, !Self.isValidBatchID(group) { throw .invalidGroup(group) }
        var limit = [""]
        if let timeout { limit = [String(try Self.timeoutSeconds(timeout))] }
        limit.append(group ?? "")
        var fresh = ""
        if let freshFor { fresh = String(try Self.freshForSeconds(freshFor)) }
        limit.append(fresh)
        let header = [batch, priority.rawValue, destination.rawValue, processing]
        let size = max(1, configuration.enqueueChunkSize)
        let first = min(size, urls.count)
        try await run(QueueScripts.enqueue, header + [String(urls.count)] + limit + urls[0..<first])
        let rest = stride(from: first, to: urls.count, by: size).map { $0..<min($0 + size, urls.count) }
        // From here on the batch exists with its whole total: a failure
        // leaves it incomplete, which the caller must know (not retry).
        var enqueued = first
        func incomplete(_ error: SchedulerError) -> SchedulerError {
            guard case .redis(let cause) = error else { return error }
            return .incompleteEnqueue(batch: batch, enqueued: enqueued, total: urls.count, cause: cause)
        }
        // Eight chunks per round trip: a pipeline, without holding every
        // command of a huge batch in memory at once.
        for group in stride(from: 0, to: rest.count, by: 8).map({ rest[$0..<min($0 + 8, rest.count)] }) {
            let replies: [RedisReply]
            do {
                replies = try await client.pipeline(group.map { evalCommand(QueueScripts.enqueue, header + ["0"] + limit + urls[$0]) })
            } catch {
                throw incomplete(.redis(error))
            }
            for (range, reply) in zip(group, replies) {
                if case .error(let message) = reply {
                    // Redis restarted and lost its scripts: send this chunk again the long way.
                    guard message.hasPrefix("NOSCRIPT") else { throw incomplete(.redis(.server(message))) }
                    do {
                        try await run(QueueScripts.enqueue, header + ["0"] + limit + urls[range])
                    } catch {
                        throw incomplete(error)
                    }
                }
                enqueued += range.count
            }
        }
        return batch
    }

    /// The job time limits a producer may set, in seconds: 1 s to a day
    /// (the intake document's `timeout` follows the same rule).
    public static let timeoutRange: ClosedRange<Int> = 1...86_400

    /// The `freshFor` a producer may give, in seconds: 0 (none) to 30 days
    /// (the intake document's `freshFor` follows the same rule). The queue
    /// remembers completions for its retention at most (7 days by default).
    public static let freshForRange: ClosedRange<Int> = 0...2_592_000

    /// `freshFor` in whole seconds, when it is that and in `freshForRange`.
    static func freshForSeconds(_ freshFor: Duration) throws(SchedulerError) -> Int {
        let (seconds, attoseconds) = freshFor.components
        guard attoseconds == 0, seconds >= Int64(freshForRange.lowerBound), seconds <= Int64(freshForRange.upperBound) else {
            throw .invalidFreshFor(freshFor)
        }
        return Int(seconds)
    }

    /// `timeout` in whole seconds, when it is that and in `timeoutRange`.
    static func timeoutSeconds(_ timeout: Duration) throws(SchedulerError) -> Int {
        let (seconds, attoseconds) = timeout.components
        guard attoseconds == 0, seconds >= Int64(timeoutRange.lowerBound), seconds <= Int64(timeoutRange.upperBound) else {
            throw .invalidTimeout(timeout)
        }
        return Int(seconds)
    }

    /// A new batch id: 16 lowercase hex characters.
    public static func makeBatchID() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))
    }

    /// Whether `id` can name a batch: 1–128 characters from letters, digits, `.`, `_`, `-`.
    public static func isValidBatchID(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }
}
