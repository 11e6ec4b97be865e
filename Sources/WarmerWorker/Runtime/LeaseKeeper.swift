import Dispatch
import Foundation
import Logging
import RedisKit
import Scheduler
import Synchronization
import WarmerSupport

/// Keeps the leases of a worker's jobs alive, whatever else the worker is
/// doing.
///
/// Renewal runs on an OS thread of its own (`warmer.leases`) over a Redis
/// connection of its own: neither a cooperative pool kept busy by hundreds
/// of jobs nor a backlog of events and finishes on the worker's shared Redis
/// client can delay it. It renews every held lease four times per lease
/// period (the same call recovers other workers' expired leases and
/// promotes due retries), sooner after a failure, and measures each
/// renewal: its *lag* (how late it started) and its *round trip*. A renewal
/// that completes more than a quarter of the lease after it was due is
/// logged (`lease renewal late`), and a summary is logged at the stop.
///
/// Jobs whose lease was lost are logged (one warning each) and handed to
/// `onLost` (the worker abandons them); jobs cancelled while running to
/// `onCancelled`. The thread cannot await: it passes them through a stream
/// to the keeper's service task (`LeaseKeeper+Service`), which calls both.
final class LeaseKeeper: Sendable {
    /// The queue whose leases are renewed (through a renewer of the
    /// keeper's thread's own: `WorkSource.makeLeaseRenewer`).
    let source: any WorkSource
    /// The jobs to renew.
    let leases: HeldLeases
    /// Time between two renewals: a quarter of the lease.
    let interval: Duration
    private let logger: Logger
    let onLost: @Sendable ([String]) async -> Void
    let onCancelled: @Sendable ([String]) async -> Void
    /// What the thread found, from the thread to the service task.
    let findings: AsyncStream<Finding>
    private let findingsSink: AsyncStream<Finding>.Continuation
    /// Told of every turn of the keeper's loop (`/healthz`).
    private let state: WorkerState?
    /// Signalled by `stop()` to wake the thread at once.
    private let stopSignal = DispatchSemaphore(value: 0)
    /// Whether the thread has ended, and who waits for it.
    private let ending = Mutex<(ended: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(source: any WorkSource, leases: HeldLeases, logger: Logger, state: WorkerState? = nil,
         onLost: @escaping @Sendable ([String]) async -> Void, onCancelled: @escaping @Sendable ([String]) async -> Void) {
        self.source = source
        self.leases = leases
        self.interval = source.leaseDuration / 4
        self.logger = logger
        self.onLost = onLost
        self.onCancelled = onCancelled
        self.state = state
        (findings, findingsSink) = AsyncStream.makeStream()
    }

    /// Jobs a renewal reported: lost, or cancelled while running.
    enum Finding: Sendable {
        case lost([String])
        case cancelled([String])
    }

    /// Ends the stream of findings once the thread has stopped.
    func finishFindings() {
        findingsSink.finish()
    }

    /// Starts the keeper's thread.
    func start() {
        DedicatedThread.start(named: DedicatedThread.name("leases")) { [self] in
            keepLeases()
            let waiters = ending.withLock { state in
                state.ended = true
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Stops renewing and returns once the thread has ended (at most one
    /// round trip later) and logged its summary. Call once.
    func stop() async {
        stopSignal.signal()
        await withCheckedContinuation { continuation in
            let ended = ending.withLock { state in
                if !state.ended { state.waiters.append(continuation) }
                return state.ended
            }
            if ended { continuation.resume() }
        }
    }

    // MARK: The keeper's thread

    /// Renews until stopped. Runs on the keeper's thread only, which owns
    /// the renewer and the figures.
    private func keepLeases() {
        let lease = source.leaseDuration
        // A renewal that hangs gives up in time for the next one.
        let renewer = source.makeLeaseRenewer(timeout: interval)
        var figures = Figures()
        var retryDelay = Duration.milliseconds(100)
        var due = ContinuousClock.now + interval
        while !waitForStop(until: due) {
            state?.recordTurn(of: .leases)
            let started = ContinuousClock.now
            let jobs = leases.snapshot
            do {
                let renewal = try renewer.renew(jobs)
                let roundTrip = ContinuousClock.now - started
                let lag = started - due
                figures.record(lag: lag, roundTrip: roundTrip)
                if lag + roundTrip > lease / 4 {
                    logger.warning("lease renewal late", metadata: [
                        "lag": .string(lag.logText), "round_trip": .string(roundTrip.logText),
                        "lease": .string(lease.logText), "jobs": .stringConvertible(jobs.count),
                    ])
                }
                handle(renewal, of: jobs)
                retryDelay = .milliseconds(100)
                due = started + interval
            } catch {
                figures.failures += 1
                logger.warning("could not renew leases", metadata: [
                    "error": .string(error.description), "in": .string(retryDelay.logText),
                ])
                due = .now + retryDelay
                retryDelay = min(retryDelay * 2, interval)
            }
        }
        logger.info("lease keeper stopped", metadata: [
            "renewals": .stringConvertible(figures.renewals), "failures": .stringConvertible(figures.failures),
            "max_lag": .string(figures.maximumLag.logText), "max_round_trip": .string(figures.maximumRoundTrip.logText),
            "interval": .string(interval.logText),
        ])
    }

    private func handle(_ renewal: JobQueue.Renewal, of jobs: [Job]) {
        if !renewal.lost.isEmpty {
            let renewed = Dictionary(jobs.map { ($0.id, $0) }) { first, _ in first }
            for id in renewal.lost {
                logger.warning("lease lost; abandoning job", metadata: renewed[id]?.logMetadata ?? ["job": .string(id)])
            }
            leases.remove(renewal.lost)
            findingsSink.yield(.lost(renewal.lost))
        }
        if !renewal.cancelled.isEmpty {
            findingsSink.yield(.cancelled(renewal.cancelled))
        }
    }

    /// Sleeps until `deadline`; returns true (at once) when a stop was requested.
    private func waitForStop(until deadline: ContinuousClock.Instant) -> Bool {
        let nanoseconds = max(.zero, deadline - .now).nanoseconds
        return stopSignal.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success
    }

    /// What the renewals measured.
    private struct Figures {
        var renewals = 0
        var failures = 0
        var maximumLag = Duration.zero
        var maximumRoundTrip = Duration.zero

        mutating func record(lag: Duration, roundTrip: Duration) {
            renewals += 1
            maximumLag = max(maximumLag, lag)
            maximumRoundTrip = max(maximumRoundTrip, roundTrip)
        }
    }
}

extension Duration {
    /// Milliseconds with a unit, for log fields: `12ms`.
    fileprivate var logText: String { "\(milliseconds)ms" }
}
