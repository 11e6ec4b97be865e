/// Gathers the job ends of one worker's slots into shared finish calls.
///
/// A worker with many slots busy on fast jobs (disk hits) ends a job every
/// few microseconds. Sent one by one, each end would pay a whole finish
/// call: a round trip, the script's start, the clock, the housekeeping and
/// a claim, which cost Redis more than the end itself. The batcher sends an
/// end at once while fewer than `callsInFlight` calls are on the wire, and
/// otherwise queues it for the next call, which then carries every end that
/// arrived meanwhile (at most `maxEndsPerCall`): group commit. An idle or
/// slow worker (one processed image at a time) therefore sends each end
/// alone, as soon as it happens; a busy one sends fewer, larger calls, and
/// no end waits longer than the calls ahead of it.
///
/// Each end that asked for a next job gets one of the jobs the call claimed,
/// in order, while they last, whether or not the end itself took effect:
/// an end whose lease was lost (another worker owns that job now) is told
/// so, and still gets the job claimed for its slot, which the call leased
/// to this worker. (Dropped, that job would sit leased to a worker that
/// never runs it until its lease ran out, then count as a stall.) A call
/// that failed (Redis unreachable) fails every end it carried, and each
/// caller retries as it would have alone.
///
/// Written here rather than taken from a package: it is a few lines of
/// actor state around `JobQueue.finish(_:worker:claimingNext:)`, and what a
/// batch may hold is the queue's own rule.
public actor FinishBatcher {
    /// What the call said of one end.
    public struct Answer: Sendable {
        /// The job claimed for the end's slot, if it asked for one and the
        /// call claimed enough: the worker's to run next.
        public let next: Job?
        /// Whether the end changed nothing because another worker owns the
        /// job now (its lease ran out and it was claimed again).
        public let leaseWasLost: Bool
    }

    /// One end waiting for its call's reply.
    private struct Waiter {
        let end: JobEnd
        let claimsNext: Bool
        let continuation: CheckedContinuation<Result<Answer, SchedulerError>, Never>
    }

    /// Sends one call: the ends, and how many jobs to claim with them.
    private let send: @Sendable (_ ends: [JobEnd], _ claims: Int) async throws(SchedulerError) -> FinishReply
    private let worker: String
    private let callsInFlight: Int
    private let maxEndsPerCall: Int
    private let onCall: @Sendable (_ ends: Int) -> Void
    private var waiting: [Waiter] = []
    private var sending = 0

    /// A batcher for `worker`'s ends on `source`.
    /// - Parameters:
    ///   - callsInFlight: finish calls on the wire at once, so that Redis
    ///     runs one while the worker handles another's reply (on
    ///     `make bench-queue`, 4 gave about 10% more jobs/s than 2).
    ///   - maxEndsPerCall: the most ends one call carries, which bounds how
    ///     long one script call holds Redis (about 40 µs an end).
    ///   - onCall: told the number of ends of each call as it is sent (the
    ///     worker counts calls in its metrics).
    public init(
        source: any WorkSource, worker: String, callsInFlight: Int = 4, maxEndsPerCall: Int = 32,
        onCall: @escaping @Sendable (_ ends: Int) -> Void = { _ in }
    ) {
        self.init(worker: worker, callsInFlight: callsInFlight, maxEndsPerCall: maxEndsPerCall, onCall: onCall) {
            ends, claims throws(SchedulerError) in try await source.finish(ends, worker: worker, claimingNext: claims)
        }
    }

    /// A batcher for `worker`'s ends on `queue` itself (a client that is
    /// no worker: tests and benches).
    public init(
        queue: JobQueue, worker: String, callsInFlight: Int = 4, maxEndsPerCall: Int = 32,
        onCall: @escaping @Sendable (_ ends: Int) -> Void = { _ in }
    ) {
        self.init(worker: worker, callsInFlight: callsInFlight, maxEndsPerCall: maxEndsPerCall, onCall: onCall) {
            ends, claims throws(SchedulerError) in try await queue.finish(ends, worker: worker, claimingNext: claims)
        }
    }

    private init(
        worker: String, callsInFlight: Int, maxEndsPerCall: Int, onCall: @escaping @Sendable (_ ends: Int) -> Void,
        send: @escaping @Sendable (_ ends: [JobEnd], _ claims: Int) async throws(SchedulerError) -> FinishReply
    ) {
        self.send = send
        self.worker = worker
        self.callsInFlight = max(1, callsInFlight)
        self.maxEndsPerCall = max(1, maxEndsPerCall)
        self.onCall = onCall
    }

    /// Ends `job` with `outcome` in the next finish call and returns the job
    /// claimed for the same slot, if `claimingNext` and the queue had one,
    /// and whether the end was refused for a lost lease.
    /// - Throws: the call's error when it failed.
    public func finish(_ job: Job, outcome: JobOutcome, claimingNext: Bool) async throws(SchedulerError) -> Answer {
        let result = await withCheckedContinuation { continuation in
            waiting.append(Waiter(end: JobEnd(job, outcome), claimsNext: claimingNext, continuation: continuation))
            sendWaiting()
        }
        return try result.get()
    }

    /// Starts calls for the waiting ends while fewer than `callsInFlight` are on the wire.
    private func sendWaiting() {
        while sending < callsInFlight, !waiting.isEmpty {
            let call = Array(waiting.prefix(maxEndsPerCall))
            waiting.removeFirst(call.count)
            sending += 1
            onCall(call.count)
            Task { await send(call) }
        }
    }

    private func send(_ call: [Waiter]) async {
        let claims = call.reduce(0) { $0 + ($1.claimsNext ? 1 : 0) }
        do {
            let reply = try await send(call.map(\.end), claims)
            var claimed = reply.claimed[...]
            for waiter in call {
                let answer = Answer(next: waiter.claimsNext ? claimed.popFirst() : nil,
                                    leaseWasLost: reply.lostLeases.contains(waiter.end.job.id))
                waiter.continuation.resume(returning: .success(answer))
            }
        } catch {
            for waiter in call { waiter.continuation.resume(returning: .failure(error)) }
        }
        sending -= 1
        sendWaiting()
    }
}
