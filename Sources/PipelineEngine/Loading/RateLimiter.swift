import Synchronization
import WarmerSupport

/// Paces downloads with token buckets: one global bucket and one per host
/// (see `RateLimiterConfiguration`), with strict priorities among waiters
/// and an adaptive slowdown of hosts that answer 429 or 503.
///
/// ## Who goes next
/// Every time tokens may have become available (a waiter arrives, the timer
/// fires, a host recovers), the limiter makes a *grant pass* over its
/// waiters, highest priority first and FIFO within a priority, asking each
/// waiter's `priority` closure afresh:
/// - if the global bucket is empty, the pass stops: no lower waiter may
///   take a token the better one needs;
/// - if only the waiter's host bucket is empty (or held by Retry-After),
///   that waiter and every later waiter for the same host are skipped (no
///   overtaking within a host), but waiters for other hosts may go on;
/// - otherwise the waiter takes one token from each bucket it needs.
///
/// A newcomer takes a token at once, without suspending, only when no
/// waiter needs the same bucket. An unlimited configuration with the host
/// not slowed down costs one lock and one dictionary look-up.
///
/// ## Timer
/// When waiters remain, the limiter keeps one timer (a task sleeping on the
/// clock), set for the earliest instant a remaining waiter could be served;
/// it then makes another pass. A new pass that needs an earlier wake-up
/// replaces the timer; a later one leaves it (an early wake-up is harmless).
///
/// ## Cancellation
/// A waiter whose task is cancelled leaves the line and throws
/// `CancellationError`, without a token. Whoever removes a waiter from the
/// line under the lock (a grant pass or the cancellation handler) resumes
/// it, outside the lock, so it is resumed exactly once. When a grant and a
/// cancellation race, the first to take the lock wins: a waiter granted a
/// token just before its cancellation is seen returns normally and keeps
/// its token (its caller sees the cancellation at its next check); no
/// token is ever taken for a waiter that throws.
///
/// ## Hosts
/// Host names are compared as given (callers lowercase them). Host state is
/// created lazily: on first use with a per-host limit, or on a slowdown.
/// An idle host (no waiters, not slowed down, bucket full) is the same as a
/// fresh one and is dropped when the table is swept: whenever it reaches
/// `sweepThreshold` entries, which then becomes twice what remains (at
/// least 1024). So the table holds at most max(1024, 2 × h) hosts, h being
/// the hosts still busy at the last sweep (waiting, slowed down, held, or
/// having taken a token within their last `burst / rate` seconds).
///
/// ## Slowdown and recovery
/// `slowDown` multiplies the host's current rate by `slowdownFactor` (not
/// below `minimumHostRate`, nor above the current rate) and empties its
/// bucket; a host without a per-host limit starts from
/// `RateLimiterConfiguration.defaultHostRate` (10 req/s, burst 1), since
/// its observed rate is not tracked (that would cost the unlimited fast
/// path). With `retryAfter` the host gets no token before then, and one at
/// that instant. `recordSuccess` adds `recoveryStep` to a slowed host's
/// rate, up to its configured rate; a host without a per-host limit is
/// dropped once back at 10 req/s (unless still held). Each success counts
/// only against a token the host was granted since its last slowdown, so
/// responses already in flight when a 429 came do not undo it at once.
///
/// ## Locking
/// One `Mutex` guards everything. `priority` closures and the clock's `now`
/// are called with it held: they must be quick and must not call the
/// limiter. Continuations are resumed, and timers cancelled, outside it.
final class RateLimiter: Sendable {
    /// The configuration the limiter was created with.
    let configuration: RateLimiterConfiguration
    private let clock: any TimerClock
    private let state: Mutex<State>

    /// Creates a limiter; `clock` is the time source (a manual one in tests).
    init(configuration: RateLimiterConfiguration, clock: some TimerClock = ContinuousClock()) {
        self.configuration = configuration
        self.clock = clock
        let global = configuration.global.map { TokenBucket($0, now: clock.now) }
        self.state = Mutex(State(global: global))
    }

    deinit {
        state.withLock { $0.timer?.task }?.cancel()
    }

    /// Waits until the global bucket and `host`'s bucket each have a token,
    /// then takes one from each.
    ///
    /// Waiters are served strictly by priority, FIFO within a priority: a
    /// waiter never receives a token while a higher-priority waiter that
    /// needs the same bucket is still waiting. `priority` is re-evaluated
    /// every time the limiter decides who goes next (so a priority change
    /// in flight counts); it is called under the limiter's lock.
    ///
    /// - Throws: `CancellationError`, at once and without taking a token,
    ///   when the calling task is cancelled before it is granted (including
    ///   when it is already cancelled on entry).
    func acquire(host: String, priority: @escaping @Sendable () -> ImagePriority) async throws(CancellationError) {
        if Task.isCancelled { throw CancellationError() }
        let id: UInt64? = state.withLock { state in
            // Unlimited, and the host is not slowed down: nothing to take.
            if state.global == nil, configuration.hostLimit(host) == nil, state.hosts[host] == nil { return nil }
            let now = clock.now
            state.addHostIfLimited(host, configuration: configuration, now: now)
            if state.takeImmediately(host: host, now: now) { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }

        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                state.withLock { state -> Effects in
                    var effects = Effects()
                    // Cancelled before being in line: the handler found nothing to remove.
                    if Task.isCancelled {
                        effects.resumes.append((continuation, false))
                        return effects
                    }
                    // Again: a sweep may have dropped the host since it was added above.
                    state.addHostIfLimited(host, configuration: configuration, now: clock.now)
                    state.waiters.append(Waiter(id: id, host: host, priority: priority, continuation: continuation))
                    state.hosts[host]?.waiterCount += 1
                    runPass(&state, &effects)
                    return effects
                }.perform()
            }
        } onCancel: {
            state.withLock { state -> Effects in
                var effects = Effects()
                guard let waiter = state.removeWaiter(id: id) else { return effects }
                effects.resumes.append((waiter.continuation, false))
                if state.waiters.isEmpty { effects.cancelledTimer = state.timer.take()?.task }
                return effects
            }.perform()
        }
        if !granted { throw CancellationError() }
    }

    /// A 429 or 503 from `host`: slows the host down (`slowdownFactor`,
    /// not below `minimumHostRate`) and empties its bucket; when
    /// `retryAfter` is given, gives the host no token before that time has
    /// passed (and one token then).
    func slowDown(host: String, retryAfter: Duration?) {
        state.withLock { state in
            let now = clock.now
            var hostState = state.hosts[host] ?? state.newSlowedHost(host, configuration: configuration, now: now)
            let rate = hostState.bucket.rate
            let floor = min(rate, configuration.effectiveMinimumHostRate)
            hostState.bucket.setRate(max(floor, rate * configuration.effectiveSlowdownFactor), at: now)
            hostState.bucket.empty(at: now)
            if let retryAfter, retryAfter > .zero {
                hostState.bucket.hold(until: now + retryAfter, now: now)
            }
            // A host without a per-host limit stays slowed down (limited) until a success
            // removes its bucket, even when the factor left its rate at 10 req/s.
            hostState.isSlowedDown = configuration.hostLimit(host) == nil
                || hostState.bucket.rate < configuration.hostTargetRate(host) * (1 - TokenBucket.tolerance)
            hostState.recoveryCredits = 0
            // Tokens only became scarcer: no pass needed, the timer (if any) stays valid or wakes early.
            if state.hosts[host] == nil {
                state.insertHost(host, hostState, now: now)
            } else {
                state.hosts[host] = hostState
            }
        }
    }

    /// A successful response from `host`: a slowed-down host's rate grows by
    /// `recoveryStep`, up to its configured rate (then a host without a
    /// per-host limit is dropped, unless still held by Retry-After). Only
    /// as many successes count as the host was granted tokens since its
    /// last slowdown. Does nothing for a host that is not slowed down.
    func recordSuccess(host: String) {
        state.withLock { state -> Effects in
            var effects = Effects()
            guard var hostState = state.hosts[host], hostState.isSlowedDown, hostState.recoveryCredits > 0 else {
                return effects
            }
            let now = clock.now
            let target = configuration.hostTargetRate(host)
            var rate = hostState.bucket.rate + configuration.recoveryStep(forHost: host)
            hostState.recoveryCredits -= 1
            if rate >= target * (1 - TokenBucket.tolerance) { // recovered (rounding included)
                rate = target
                hostState.isSlowedDown = false
                hostState.recoveryCredits = 0
            }
            hostState.bucket.setRate(rate, at: now)
            if !hostState.isSlowedDown, configuration.hostLimit(host) == nil, !hostState.bucket.isHeld(at: now) {
                state.hosts[host] = nil
            } else {
                state.hosts[host] = hostState
            }
            // A faster (or removed) bucket may serve waiters sooner.
            runPass(&state, &effects)
            return effects
        }.perform()
    }

    // MARK: - Inspection (tests, diagnostics)

    /// Waiters in line.
    var waitingCount: Int { state.withLock { $0.waiters.count } }
    /// Hosts with state (a bucket): see *Hosts*.
    var hostCount: Int { state.withLock { $0.hosts.count } }
    /// When the timer will make the next pass, if one is set.
    var nextWakeUp: ContinuousClock.Instant? { state.withLock { $0.timer?.deadline } }
    /// `host`'s current rate, or nil when it has no bucket (unlimited).
    func rate(ofHost host: String) -> Double? { state.withLock { $0.hosts[host]?.bucket.rate } }
    /// Whether `host` is slowed down (below its configured rate).
    func isSlowedDown(host: String) -> Bool { state.withLock { $0.hosts[host]?.isSlowedDown ?? false } }

    // MARK: - Passes and the timer

    /// Makes a grant pass at the clock's now and sets the timer for what is left.
    private func runPass(_ state: inout State, _ effects: inout Effects) {
        let now = clock.now
        guard let wakeUp = state.grantPass(now: now, effects: &effects) else {
            effects.cancelledTimer = state.timer.take()?.task // nobody waits
            return
        }
        // Never at or before now: a wake-up would find nothing new and spin.
        let deadline = max(wakeUp, now + .nanoseconds(1))
        if let timer = state.timer, timer.deadline <= deadline { return }
        effects.cancelledTimer = state.timer.take()?.task
        state.timerGeneration += 1
        let generation = state.timerGeneration
        let clock = self.clock
        let task = Task.detached { [weak self] in
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return } // replaced
            self?.timerFired(generation: generation)
        }
        state.timer = PassTimer(deadline: deadline, generation: generation, task: task)
    }

    /// The timer's wake-up: a pass, unless the timer was replaced meanwhile.
    private func timerFired(generation: UInt64) {
        state.withLock { state -> Effects in
            var effects = Effects()
            guard state.timer?.generation == generation else { return effects }
            state.timer = nil
            runPass(&state, &effects)
            return effects
        }.perform()
    }
}
