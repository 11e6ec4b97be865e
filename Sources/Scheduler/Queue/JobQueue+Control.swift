import RedisKit

extension JobQueue {
    /// What a cancellation did.
    public struct Cancellation: Sendable, Hashable {
        /// Jobs ended because no batch needs them any more (queued ones
        /// removed, running ones being aborted).
        public var cancelledJobs = 0
        /// Running jobs whose workers were told to abort them.
        public var abortedRunningJobs = 0
        /// Whether the batch had already finished (every URL ended) when
        /// asked to cancel it: then nothing changed, not even `cancelledAt`.
        public var alreadyFinished = false
    }

    /// Cancels batch `id`: its queued jobs leave the queue atomically, its
    /// running jobs are aborted by their workers (through the control
    /// stream), and every URL not yet ended counts as `cancelled` with a
    /// `cancelled` event. Work another batch still needs goes on.
    ///
    /// A batch that had already finished is left as it is (its counters,
    /// and no `cancelledAt`): the answer has `alreadyFinished`.
    ///
    /// Large batches are cancelled in steps of `chunk` jobs, each atomic.
    /// - Throws: `SchedulerError.batchNotFound` for an unknown batch.
    @discardableResult
    public func cancel(batch id: String, chunk: Int = 2_000) async throws(SchedulerError) -> Cancellation {
        var total = Cancellation()
        while true {
            let reply: RedisReply
            do {
                reply = try await run(QueueScripts.cancel, [id, String(max(1, chunk))])
            } catch .redis(.server(let text)) where text.hasPrefix("NO_BATCH") {
                throw .batchNotFound(id)
            }
            let counts = reply.array.map { $0.integer ?? 0 }
            guard counts.count == 4 else { throw .redis(.unexpectedReply("cancel: \(reply)")) }
            if counts[3] == 1 {
                // (Finished by the previous chunk's cancellations: not "already".)
                if total == Cancellation() { total.alreadyFinished = true }
                return total
            }
            total.cancelledJobs += counts[0]
            total.abortedRunningJobs += counts[1]
            if counts[2] == 0 { return total }
        }
    }

    /// Cancels jobs in every batch they serve (see `cancel(batch:)`).
    @discardableResult
    public func cancel(jobs ids: [String]) async throws(SchedulerError) -> Cancellation {
        guard !ids.isEmpty else { return Cancellation() }
        let counts = try await run(QueueScripts.cancel, ["", "0"] + ids).array.map { $0.integer ?? 0 }
        return Cancellation(cancelledJobs: counts.first ?? 0, abortedRunningJobs: counts.dropFirst().first ?? 0)
    }

    /// Changes the priority of batch `id`'s jobs that have not ended. A job
    /// shared with a more urgent batch keeps that batch's priority. Returns
    /// the number of jobs changed.
    ///
    /// Large batches change in steps of about `chunk` jobs, each atomic, so
    /// that no one script call holds Redis for the whole batch.
    /// - Throws: `SchedulerError.batchNotFound` for an unknown batch.
    @discardableResult
    public func setPriority(_ priority: JobPriority, ofBatch id: String, chunk: Int = 2_000) async throws(SchedulerError) -> Int {
        var changed = 0
        var cursor = "0"
        repeat {
            let reply: RedisReply
            do {
                reply = try await run(QueueScripts.priority, [id, priority.rawValue, cursor, String(max(1, chunk))])
            } catch .redis(.server(let text)) where text.hasPrefix("NO_BATCH") {
                throw .batchNotFound(id)
            }
            let step = reply.array
            guard step.count == 2, let count = step[0].integer, let next = step[1].string else {
                throw .redis(.unexpectedReply("priority: \(reply)"))
            }
            changed += count
            cursor = next
        } while cursor != "0"
        return changed
    }

    /// Changes the priority of single jobs. Returns the number of jobs changed.
    @discardableResult
    public func setPriority(_ priority: JobPriority, ofJobs ids: [String]) async throws(SchedulerError) -> Int {
        guard !ids.isEmpty else { return 0 }
        return try await run(QueueScripts.priority, ["", priority.rawValue] + ids).integer ?? 0
    }

    /// Pauses the queue: running jobs finish, no worker claims new ones.
    public func pause() async throws(SchedulerError) {
        try await send(["HSET", keys.config, "paused", "1"])
    }

    /// Resumes a paused queue and wakes idle workers.
    public func resume() async throws(SchedulerError) {
        let replies: [RedisReply]
        do {
            replies = try await client.pipeline([["HDEL", keys.config, "paused"], ["RPUSH", keys.intake, "wake"]])
        } catch {
            throw .redis(error)
        }
        for case .error(let message) in replies { throw .redis(.server(message)) }
    }
}
