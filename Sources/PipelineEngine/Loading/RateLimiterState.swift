import Synchronization

/// The state behind `RateLimiter`'s lock: its waiters, host buckets and timer.
extension RateLimiter {

    /// A task waiting in `RateLimiter.acquire`.
    struct Waiter: Sendable {
        /// The waiter's number, in order of arrival.
        let id: UInt64
        /// The host whose bucket it needs.
        let host: String
        /// Its current priority, asked on every pass.
        let priority: @Sendable () -> ImagePriority
        /// Resumed with true when granted, false when cancelled.
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// A host's bucket and slowdown state.
    struct HostState: Sendable {
        /// The host's bucket, at its current (maybe slowed-down) rate.
        var bucket: TokenBucket
        /// Whether the rate is below the configured (or default) one.
        var isSlowedDown = false
        /// Tokens granted since the last slowdown and not yet matched by a
        /// `recordSuccess`: the successes that may still count.
        var recoveryCredits = 0
        /// Waiters in line for this host.
        var waiterCount = 0

        /// Whether the host is the same as a fresh one at `now`: droppable.
        func isIdle(at now: ContinuousClock.Instant) -> Bool {
            var bucket = bucket
            bucket.refill(at: now)
            return waiterCount == 0 && !isSlowedDown && bucket.isFull(at: now)
        }
    }

    /// The single timer of a limiter.
    struct PassTimer: Sendable {
        /// When it fires.
        let deadline: ContinuousClock.Instant
        /// Tells a replaced timer's late wake-up apart.
        let generation: UInt64
        /// The sleeping task, cancelled when replaced.
        let task: Task<Void, Never>
    }

    /// What to do once the lock is released.
    struct Effects: Sendable {
        /// Continuations to resume: true granted, false cancelled.
        var resumes: [(CheckedContinuation<Bool, Never>, Bool)] = []
        /// A timer that was replaced or is no longer needed.
        var cancelledTimer: Task<Void, Never>?

        /// Cancels the old timer and resumes the waiters.
        func perform() {
            cancelledTimer?.cancel()
            for (continuation, granted) in resumes { continuation.resume(returning: granted) }
        }
    }

    /// What the limiter's lock guards.
    struct State: Sendable {
        /// The fewest hosts worth a sweep.
        static let minimumSweepThreshold = 1024

        /// The global bucket, if there is a global limit.
        var global: TokenBucket?
        /// Hosts with a bucket (see `RateLimiter` *Hosts*).
        var hosts: [String: HostState] = [:]
        /// Waiters in order of arrival.
        var waiters: [Waiter] = []
        /// The last waiter number handed out.
        var nextID: UInt64 = 0
        /// The timer, while one is set.
        var timer: PassTimer?
        /// The last timer's generation.
        var timerGeneration: UInt64 = 0
        /// The host count that triggers the next sweep.
        var sweepThreshold = minimumSweepThreshold

        /// Takes a token from each bucket `host` needs, for a newcomer: only if
        /// nobody waits for the same buckets and they have tokens now.
        mutating func takeImmediately(host: String, now: ContinuousClock.Instant) -> Bool {
            global?.refill(at: now)
            if let global, !(waiters.isEmpty && global.hasToken(at: now)) { return false }
            if let hostState = hosts[host] {
                guard hostState.waiterCount == 0 else { return false }
                hosts[host]!.bucket.refill(at: now)
                guard hosts[host]!.bucket.hasToken(at: now) else { return false }
            }
            takeTokens(host: host, now: now)
            return true
        }

        /// Takes one token from each bucket `host` needs, which must have them.
        private mutating func takeTokens(host: String, now: ContinuousClock.Instant) {
            let tookGlobal = global?.take(at: now) ?? true
            let tookHost = hosts[host]?.bucket.take(at: now) ?? true
            assert(tookGlobal && tookHost, "tokens taken from an empty bucket")
            if hosts[host]?.isSlowedDown == true { hosts[host]!.recoveryCredits += 1 }
        }

        /// Serves waiters as described in `RateLimiter` (*Who goes next*):
        /// granted ones leave the line and are added to `effects`. Returns the
        /// earliest instant a remaining waiter could be served, or nil when
        /// none remains.
        mutating func grantPass(now: ContinuousClock.Instant, effects: inout Effects) -> ContinuousClock.Instant? {
            guard !waiters.isEmpty else { return nil }
            global?.refill(at: now)
            if let global, !global.hasToken(at: now) { return global.nextTokenTime } // nobody can go

            var levels = [[Int]](repeating: [], count: ImagePriority.allCases.count)
            for index in waiters.indices { levels[waiters[index].priority().rawValue].append(index) }
            var granted = [Bool](repeating: false, count: waiters.count)
            var blockedHosts: [String: ContinuousClock.Instant] = [:] // host → its next token
            var stoppedByGlobal = false
            var grantedCount = 0
            pass: for level in levels.reversed() {
                for index in level {
                    let host = waiters[index].host
                    if blockedHosts[host] != nil { continue } // no overtaking within a host
                    if let global, !global.hasToken(at: now) {
                        stoppedByGlobal = true
                        break pass
                    }
                    if hosts[host] != nil {
                        hosts[host]!.bucket.refill(at: now)
                        guard hosts[host]!.bucket.hasToken(at: now) else {
                            blockedHosts[host] = hosts[host]!.bucket.nextTokenTime
                            continue
                        }
                        hosts[host]!.waiterCount -= 1
                    }
                    takeTokens(host: host, now: now)
                    granted[index] = true
                    grantedCount += 1
                    effects.resumes.append((waiters[index].continuation, true))
                }
            }
            if grantedCount > 0 {
                waiters = zip(waiters, granted).compactMap { waiter, isGranted in isGranted ? nil : waiter }
            }
            guard !waiters.isEmpty else { return nil }

            // A blocked waiter needs its host's token and a global one.
            let globalReady = global.map { $0.hasToken(at: now) ? now : $0.nextTokenTime } ?? now
            var wakeUp: ContinuousClock.Instant? = stoppedByGlobal ? globalReady : nil
            for hostReady in blockedHosts.values {
                let ready = max(globalReady, hostReady)
                wakeUp = wakeUp.map { min($0, ready) } ?? ready
            }
            return wakeUp ?? globalReady
        }

        /// Removes the waiter numbered `id` from the line, if it is still there.
        mutating func removeWaiter(id: UInt64) -> Waiter? {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = waiters.remove(at: index)
            hosts[waiter.host]?.waiterCount -= 1
            return waiter
        }

        /// The state of a host first seen in a slowdown, at its configured (or
        /// default) rate and full, counting the waiters already in line for it.
        func newSlowedHost(_ host: String, configuration: RateLimiterConfiguration, now: ContinuousClock.Instant) -> HostState {
            let limit = configuration.hostLimit(host) ?? RateLimit(requestsPerSecond: RateLimiterConfiguration.defaultHostRate, burst: 1)
            var hostState = HostState(bucket: TokenBucket(limit, now: now))
            hostState.waiterCount = waiters.reduce(0) { $0 + ($1.host == host ? 1 : 0) }
            return hostState
        }

        /// Adds `host` with a full bucket if there is a per-host limit and it
        /// has no state yet.
        mutating func addHostIfLimited(_ host: String, configuration: RateLimiterConfiguration, now: ContinuousClock.Instant) {
            guard let perHost = configuration.hostLimit(host), hosts[host] == nil else { return }
            insertHost(host, HostState(bucket: TokenBucket(perHost, now: now)), now: now)
        }

        /// Adds a host, first sweeping idle hosts if the table has reached
        /// `sweepThreshold` (see `RateLimiter` *Hosts*).
        mutating func insertHost(_ host: String, _ hostState: HostState, now: ContinuousClock.Instant) {
            if hosts.count >= sweepThreshold {
                hosts = hosts.filter { !$0.value.isIdle(at: now) }
                sweepThreshold = max(Self.minimumSweepThreshold, 2 * hosts.count)
            }
            hosts[host] = hostState
        }
    }
}
