import Logging
import RedisKit

extension JobQueue {
    /// Ends a job: counts its outcome in each of its batches and publishes
    /// the final event — or, for a transient failure with attempts left,
    /// parks it for a retry after the backoff with a `delayed` event. In the
    /// same atomic step, claims up to `claimingNext` more jobs for `worker`
    /// and returns them (a busy worker needs no separate claim).
    /// - Throws: `SchedulerError.leaseLost` when another worker owns the job
    ///   now; the jobs the call claimed all the same are released back to
    ///   the queue first, rather than left leased to a caller that does not
    ///   know of them. (`FinishBatcher`, which the worker uses, hands them
    ///   to the slot instead.)
    @discardableResult
    public func finish(
        _ job: Job, outcome: JobOutcome, worker: String, claimingNext count: Int = 0
    ) async throws(SchedulerError) -> [Job] {
        let reply = try await finish([JobEnd(job, outcome)], worker: worker, claimingNext: count)
        if reply.lostLeases.contains(job.id) {
            for claimed in reply.claimed { _ = try await release(claimed) }
            throw .leaseLost(jobID: job.id)
        }
        return reply.claimed
    }

    /// Ends several of `worker`'s jobs and claims up to `claimingNext` more,
    /// in one atomic script call (finish.lua). Each end is the transition
    /// `finish(_:outcome:worker:claimingNext:)` makes for one job, in order;
    /// the call's fixed costs — the round trip, the clock, the housekeeping,
    /// the claim — are paid once for all of them, which is what lets one
    /// busy worker end thousands of jobs a second (`FinishBatcher` gathers
    /// them). An end whose lease was lost changes nothing and is listed in
    /// the reply; the others take effect.
    public func finish(_ ends: [JobEnd], worker: String, claimingNext count: Int) async throws(SchedulerError) -> FinishReply {
        var arguments = [worker, String(max(0, count)), String(ends.count)]
        arguments.reserveCapacity(arguments.count + ends.count * 8)
        var retryDelays: [Int?] = []
        retryDelays.reserveCapacity(ends.count)
        for end in ends {
            let (fields, retryDelay) = finishArguments(end)
            arguments += fields
            retryDelays.append(retryDelay)
        }
        let reply = try await run(QueueScripts.finish, arguments).array
        let lost = Set((reply.dropFirst(2).first?.array ?? []).compactMap(\.string))
        for (end, retryDelay) in zip(ends, retryDelays) where !lost.contains(end.job.id) {
            logEnd(of: end.job, outcome: end.outcome, retryDelay: retryDelay)
        }
        let housekeeping = QueueHousekeeping(reply.dropFirst().first)
        housekeeping.log(to: logger)
        await parseLeasedDocuments(housekeeping)
        let claimed = Self.jobs(in: reply.first)
        logClaims(claimed)
        return FinishReply(claimed: claimed, lostLeases: lost)
    }

    /// The eight finish.lua fields of one end (id, token, state, source,
    /// bytes, code, message, delay) and, for a transient failure with
    /// attempts left, the backoff before its retry in ms.
    private func finishArguments(_ end: JobEnd) -> (fields: [String], retryDelay: Int?) {
        var state = end.outcome.state, source = "", bytes = "", code = "", message = ""
        var retryDelay: Int?
        switch end.outcome {
        case .completed(let from, let size): (source, bytes) = (from, String(size))
        case .failed(let reason, let text, let isTransient):
            (code, message) = (reason, text)
            if isTransient, let wait = configuration.retry.delay(afterAttempt: end.job.attempt) {
                state = "retry"
                retryDelay = wait.milliseconds
            }
        case .deadLettered(let reason, let text): (code, message) = (reason, text)
        case .cancelled: break
        }
        return ([end.job.id, end.job.leaseToken, state, source, bytes, code, message, String(retryDelay ?? 0)], retryDelay)
    }

    /// One line for the end of a job's attempt: at debug when it completed,
    /// at info or above otherwise (docs/operations.md, "Logs").
    private func logEnd(of job: Job, outcome: JobOutcome, retryDelay: Int?) {
        switch outcome {
        case .completed(let source, let bytes):
            logger.debug("job completed", metadata: job.logMetadata.merging([
                "source": .string(source), "bytes": .stringConvertible(bytes),
            ]) { _, new in new })
        case .failed(let code, let message, _):
            let fields = job.logMetadata.merging([
                "code": .string(code), "message": .string(URLCredentials.masked(message)),
            ]) { _, new in new }
            if let retryDelay {
                logger.info("job failed; retry scheduled", metadata: fields.merging([
                    "retry_in_ms": .stringConvertible(retryDelay),
                ]) { _, new in new })
            } else {
                logger.warning("job failed; dead-lettered", metadata: fields)
            }
        case .deadLettered(let code, let message):
            logger.warning("job cannot run; dead-lettered", metadata: job.logMetadata.merging([
                "code": .string(code), "message": .string(URLCredentials.masked(message)),
            ]) { _, new in new })
        case .cancelled:
            logger.info("job cancelled", metadata: job.logMetadata)
        }
    }

}
