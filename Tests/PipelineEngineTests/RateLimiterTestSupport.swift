import Synchronization
import Testing
import TestSupport
@testable import PipelineEngine

// The manual clock and helpers the RateLimiter tests drive the limiter with.

/// A limiter on a manual clock, with one task per `acquire` that records
/// whether it was granted or cancelled.
final class Harness: Sendable {
    /// What became of a waiter.
    enum Outcome: Sendable, Equatable { case granted(String), cancelled(String) }

    let clock = ManualClock()
    let limiter: RateLimiter
    private let outcomes = Mutex<[Outcome]>([])
    private let tasks = Mutex<[String: Task<Void, Never>]>([:])
    private let submitted = Atomic<Int>(0)

    init(_ configuration: RateLimiterConfiguration) {
        limiter = RateLimiter(configuration: configuration, clock: clock)
    }

    /// Names granted, in the order their tasks recorded it.
    var granted: [String] {
        outcomes.withLock { $0.compactMap { if case .granted(let name) = $0 { name } else { nil } } }
    }

    /// Names cancelled, in the order their tasks recorded it.
    var cancelled: [String] {
        outcomes.withLock { $0.compactMap { if case .cancelled(let name) = $0 { name } else { nil } } }
    }

    /// Starts a task acquiring a token for `host`, and waits until it is in
    /// line or done; records an issue at the caller's line if that did not
    /// happen in time. (The harness checks itself rather than have every
    /// call wrapped in `#expect`: each expectation is some 25 ms of
    /// compiling, docs/testing.md.)
    func acquire(
        _ name: String, host: String = "a", priority: @escaping @Sendable () -> ImagePriority = { .normal },
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        submitted.add(1, ordering: .sequentiallyConsistent)
        let task = Task {
            do {
                try await limiter.acquire(host: host, priority: priority)
                outcomes.withLock { $0.append(.granted(name)) }
            } catch {
                outcomes.withLock { $0.append(.cancelled(name)) }
            }
        }
        tasks.withLock { $0[name] = task }
        if await !waitUntil({ self.isAccountedFor }) {
            Issue.record("\(name) was neither in line nor done within 10 s", sourceLocation: sourceLocation)
        }
    }

    /// Starts a task acquiring at a fixed `priority`.
    func acquire(
        _ name: String, host: String = "a", priority: ImagePriority, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await acquire(name, host: host, priority: { priority }, sourceLocation: sourceLocation)
    }

    /// Cancels the task of the waiter `name`.
    func cancel(_ name: String) {
        tasks.withLock { $0[name] }?.cancel()
    }

    /// Moves the clock and waits until the limiter has acted on it; records
    /// an issue at the caller's line if it did not within 10 s.
    func advance(by duration: Duration, sourceLocation: SourceLocation = #_sourceLocation) async {
        clock.advance(by: duration)
        if await !settle() {
            Issue.record("the limiter did not settle within 10 s of moving the clock", sourceLocation: sourceLocation)
        }
    }

    /// Waits until every submitted task is in line or has recorded its
    /// outcome, and the limiter's timer (if any) lies in the future: nothing
    /// more can happen before the clock moves.
    ///
    /// The timer is read first. A due timer's pass may run between the two
    /// reads: read the other way round, the waiters would be counted before
    /// it and the new timer (always in the future) after it, and a waiter
    /// the pass granted but whose task had not yet recorded it would go
    /// unseen. Read this way, such a waiter is in transit, not accounted for.
    func settle() async -> Bool {
        await waitUntil {
            let timerIsAhead = self.limiter.nextWakeUp.map { $0 > self.clock.now } ?? true
            return timerIsAhead && self.isAccountedFor
        }
    }

    /// Whether each submitted task is either waiting or has recorded its
    /// outcome. The outcome count is read on both sides of the waiting count
    /// so that a waiter in transit is never counted twice.
    private var isAccountedFor: Bool {
        let before = outcomes.withLock { $0.count }
        let waiting = limiter.waitingCount
        let after = outcomes.withLock { $0.count }
        return before == after && before + waiting == submitted.load(ordering: .sequentiallyConsistent)
    }
}

/// A priority that a test changes while its waiter waits.
final class PriorityBox: Sendable {
    private let value: Mutex<ImagePriority>
    init(_ priority: ImagePriority) { value = Mutex(priority) }
    /// The closure the limiter asks.
    var read: @Sendable () -> ImagePriority { { self.value.withLock { $0 } } }
    /// Changes the priority.
    func set(_ priority: ImagePriority) { value.withLock { $0 = priority } }
}

/// Yields (and, every hundred tries, naps a millisecond) until `condition`
/// holds; false if it does not within 10 s of real time. The bound only
/// stops a broken build from hanging: passing runs return at once.
func waitUntil(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    var tries = 0
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        tries += 1
        if tries.isMultiple(of: 100) { try? await Task.sleep(for: .milliseconds(1)) } else { await Task.yield() }
    }
    return true
}
