import Logging
import RedisKit
import WarmerSupport

extension JobQueue {
    /// Claims up to `count` jobs, highest priority first, each leased to
    /// `worker`. Before claiming it promotes due retries, recovers expired
    /// leases and expands one intake document. Returns an empty array when
    /// nothing is queued or the queue is paused. With an `intakeParser`, a
    /// large document the claim took is parsed and staged before it returns.
    public func claim(upTo count: Int, worker: String) async throws(SchedulerError) -> [Job] {
        let reply = try await run(QueueScripts.claim, [String(max(1, count)), worker]).array
        let housekeeping = QueueHousekeeping(reply.dropFirst().first)
        housekeeping.log(to: logger)
        await parseLeasedDocuments(housekeeping)
        let jobs = Self.jobs(in: reply.first)
        logClaims(jobs)
        return jobs
    }

    /// Waits until jobs may be available or `timeout` passes, using a client
    /// reserved for blocking commands. Returns true when woken (by new jobs or
    /// an intake document).
    ///
    /// The wait is a `BLMOVE` of the intake list's head to `intake:pending`,
    /// which the next claim drains: a document taken while waking never
    /// leaves Redis, whatever happens to this worker. So a cancelled caller
    /// stops waiting at once (`RedisClient.sendBlocking`) and gets false.
    public func waitForWork(using blockingClient: RedisClient, timeout: Duration) async throws(SchedulerError) -> Bool {
        let seconds = String(format: "%.3f", Double(timeout.milliseconds) / 1000)
        do {
            let reply = try await blockingClient.sendBlocking(["BLMOVE", keys.intake, keys.pendingIntake, "LEFT", "RIGHT", seconds])
            return reply != .null
        } catch {
            throw .redis(error)
        }
    }

    /// One debug line per claimed job (the claim published its `started` event).
    func logClaims(_ jobs: [Job]) {
        guard logger.logLevel <= .debug else { return }
        for job in jobs { logger.debug("job claimed", metadata: job.logMetadata) }
    }

    /// Puts a claimed job back in the queue at its place without counting an
    /// attempt (graceful stop). A job cancelled meanwhile ends as cancelled.
    /// Returns false when the lease was already lost.
    @discardableResult
    public func release(_ job: Job) async throws(SchedulerError) -> Bool {
        let released = try await run(QueueScripts.release, [job.id, job.leaseToken]).integer == 1
        logger.debug("job released to the queue", metadata: job.logMetadata.merging([
            "released": .stringConvertible(released),
        ]) { _, new in new })
        return released
    }

    /// What a lease renewal found.
    public struct Renewal: Sendable, Hashable {
        /// Jobs whose lease was lost: it expired (the job went back to the
        /// queue with a `stalled` event, or to the dead letters) or another
        /// claim holds the job now. Abandon them.
        ///
        /// A job that ended or was released through its lease meanwhile (its
        /// finish crossed the renewal) is not lost and is not listed.
        public var lost: [String]
        /// Jobs cancelled while running: abort them (a missed control message is caught here).
        public var cancelled: [String]

        /// A renewal's findings (the queue decodes them from the renew
        /// script; an in-memory `LeaseRenewing` builds them).
        public init(lost: [String], cancelled: [String]) {
            self.lost = lost
            self.cancelled = cancelled
        }
    }

    /// Extends the leases of `jobs` in one call, after recovering other
    /// workers' expired leases and promoting due retries.
    public func renewLeases(of jobs: [Job]) async throws(SchedulerError) -> Renewal {
        renewal(from: try await run(QueueScripts.renew, jobs.flatMap { [$0.id, $0.leaseToken] }), renewing: jobs)
    }

    /// `renewLeases(of:)` on `connection`, blocking the calling thread: for
    /// a lease keeper on a thread of its own, which neither a busy
    /// cooperative pool nor the queue client's backlog can hold up.
    public func renewLeases(of jobs: [Job], on connection: RedisConnection) throws(SchedulerError) -> Renewal {
        renewal(from: try run(QueueScripts.renew, jobs.flatMap { [$0.id, $0.leaseToken] }, on: connection), renewing: jobs)
    }

    private func renewal(from reply: RedisReply, renewing jobs: [Job]) -> Renewal {
        let lists = reply.array
        QueueHousekeeping(lists.dropFirst(2).first).log(to: logger)
        let renewal = Renewal(lost: lists.first?.array.compactMap(\.string) ?? [],
                              cancelled: lists.dropFirst().first?.array.compactMap(\.string) ?? [])
        logger.debug("leases renewed", metadata: [
            "jobs": .stringConvertible(jobs.count - renewal.lost.count), "lost": .stringConvertible(renewal.lost.count),
        ])
        return renewal
    }

    /// Decodes the jobs returned by the claim and finish scripts.
    static func jobs(in reply: RedisReply?) -> [Job] {
        (reply?.array ?? []).compactMap { entry in
            let fields = entry.array.map { $0.string ?? "" }
            guard fields.count >= 9 else { return nil }
            let batches = fields[7].split(separator: ",").map(String.init)
            // The queue validated the timeout when the job was made; anything else means none.
            let timeout = Int(fields[8]).flatMap { timeoutRange.contains($0) ? Duration.seconds($0) : nil }
            var timeInQueue: Duration?
            if fields.count >= 11, let enqueuedAt = Int(fields[9]), let claimedAt = Int(fields[10]), claimedAt >= enqueuedAt {
                timeInQueue = .milliseconds(claimedAt - enqueuedAt)
            }
            return Job(id: fields[0], url: fields[1], batches: batches, priority: fields[2], destination: fields[3],
                       processing: fields[4], attempt: Int(fields[5]) ?? 1, leaseToken: fields[6], timeout: timeout,
                       timeInQueue: timeInQueue)
        }
    }
}
