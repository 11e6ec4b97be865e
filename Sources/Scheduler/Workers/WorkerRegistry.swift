import RedisKit
import WarmerSupport

/// The live workers of a queue: each worker's heartbeat record in Redis,
/// written by the worker and read by `warmer workers` and `warmer status`.
///
/// A record is a hash `warmer:{Q}:worker:ID` that expires one lease period
/// after its last beat, plus the id in the sorted set `warmer:{Q}:workers`
/// scored by that expiry, so the live workers are listed without scanning
/// the keyspace. A worker that dies stops beating and its record lapses
/// within a lease; a clean exit removes it at once (`remove`). See
/// docs/worker-registry.md.
public struct WorkerRegistry: Sendable {
    /// The queue whose workers these are.
    public let queue: JobQueue

    /// The registry of `queue`'s workers.
    public init(queue: JobQueue) {
        self.queue = queue
    }

    /// How long a record lives without a beat: the queue's lease duration.
    public var lease: Duration { queue.configuration.leaseDuration }

    /// Writes or refreshes `identity`'s record with its `load`, for one lease
    /// period from now (Redis clock).
    ///
    /// - Parameter startedAt: what the previous beat returned; nil on the first.
    /// - Returns: the record's `startedAt` (ms, Redis clock), to pass to the next beat.
    @discardableResult
    public func beat(_ identity: WorkerIdentity, load: WorkerLoad, startedAt: Int?) async throws(SchedulerError) -> Int {
        let reply = try await queue.run(WorkerScripts.heartbeat, [
            identity.id, String(max(1, lease.milliseconds)), startedAt.map(String.init) ?? "",
            identity.host, String(identity.pid), identity.version, String(identity.concurrency),
            String(load.busySlots), load.runningJobIDs.joined(separator: ","),
        ])
        guard let stamp = reply.integer else { throw .redis(.unexpectedReply("worker heartbeat: \(reply)")) }
        return stamp
    }

    /// Removes worker `id`'s record (a clean exit).
    public func remove(_ id: String) async throws(SchedulerError) {
        let replies: [RedisReply]
        do {
            replies = try await queue.client.pipeline([["DEL", queue.keys.worker(id)], ["ZREM", queue.keys.workers, id]])
        } catch {
            throw .redis(error)
        }
        for case .error(let message) in replies { throw .redis(.server(message)) }
    }

    /// The live workers, sorted by id. Prunes the ids of lapsed records.
    public func workers() async throws(SchedulerError) -> [WorkerRecord] {
        let reply = try await queue.run(WorkerScripts.list, [])
        let parts = reply.array
        guard parts.count == 2, let now = parts[0].integer else { throw .redis(.unexpectedReply("worker list: \(reply)")) }
        return parts[1].array.compactMap { WorkerRecord(fields: $0.fieldDictionary, readAt: now) }.sorted { $0.id < $1.id }
    }

    /// The number of live workers (read only: nothing is pruned).
    public func liveCount() async throws(SchedulerError) -> Int {
        try await queue.run(WorkerScripts.count, []).integer ?? 0
    }

    /// The command that counts live workers, to send in a pipeline with
    /// others; its reply is `NOSCRIPT` until the script was loaded once
    /// (`liveCount()` loads it).
    var liveCountCommand: [String] {
        queue.evalCommand(WorkerScripts.count, [])
    }
}
