import Synchronization
import WarmerSupport

/// A clock that moves only when the test moves it (`advance(by:)`), with
/// `ContinuousClock`'s instants: code under test sleeps on it as on a real
/// clock, and the test decides when each sleep ends.
///
/// A test first waits until the code sleeps (`waitForSleepers(_:)`), then
/// moves the clock. Every sleep whose deadline the clock reaches ends
/// before `advance(by:)` returns; a sleep it does not reach stays pending,
/// so "nothing happens before the deadline" is a plain assertion, with no
/// time left to chance.
public final class ManualClock: TimerClock, Sendable {
    public typealias Instant = ContinuousClock.Instant

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Instant
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        var sleeperWaiters: [UInt64: (count: Int, deadline: Instant?, resume: CheckedContinuation<Void, Never>)] = [:]

        func pending(until deadline: Instant?) -> Int {
            guard let deadline else { return sleepers.count }
            return sleepers.values.count { $0.deadline == deadline }
        }
    }

    private let state: Mutex<State>
    private let reads = Atomic<Int>(0)

    /// A clock that stands at the real clock's present until moved.
    public init() {
        state = Mutex(State(now: ContinuousClock.now))
    }

    /// Where the clock stands.
    public var now: Instant {
        reads.add(1, ordering: .relaxed)
        return state.withLock { $0.now }
    }

    /// How often `now` was read (a fast path may promise not to).
    public var nowReads: Int { reads.load(ordering: .relaxed) }

    /// Sleeps end exactly at their deadlines.
    public var minimumResolution: Duration { .zero }

    /// How many sleeps are pending now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Returns when the clock reaches `deadline` (at once if it has), or
    /// throws `CancellationError` when the sleeping task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    wakeSleeperWaiters()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and ends every sleep whose
    /// deadline it reaches, earliest first.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` sleeps are pending (at once if they
    /// are): sleeps until `deadline` only, when one is given. A cancelled
    /// task returns at once too (a test racing it against something else).
    public func waitForSleepers(_ count: Int = 1, until deadline: Instant? = nil) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isReady = state.withLock { state in
                    guard !Task.isCancelled, state.pending(until: deadline) < count else { return true }
                    state.sleeperWaiters[id] = (count, deadline, continuation)
                    return false
                }
                if isReady { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.sleeperWaiters.removeValue(forKey: id) }
            waiter?.resume.resume()
        }
    }

    private func wakeSleeperWaiters() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let pending = state.pending(until:)
            let ready = state.sleeperWaiters.filter { pending($0.value.deadline) >= $0.value.count }
            for id in ready.keys { state.sleeperWaiters[id] = nil }
            return ready.values.map(\.resume)
        }
        ready.forEach { $0.resume() }
    }
}
