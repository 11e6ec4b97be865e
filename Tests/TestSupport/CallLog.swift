import Synchronization

/// What a fake was asked to do, in order, and a way to wait until it has
/// been asked: a test awaits the call it needs instead of sleeping. The
/// fakes of every module record into it (PipelineEngineFakes, SchedulerFakes).
public final class CallLog<Call: Sendable>: Sendable {
    private struct State {
        var calls: [Call] = []
        var waiters: [(count: Int, matches: @Sendable (Call) -> Bool, resume: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// An empty log.
    public init() {}

    /// Every call so far, in order.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// Records `call` and wakes the waiters it satisfies (the fakes call this).
    public func record(_ call: Call) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.calls.append(call)
            let calls = state.calls
            var ready: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard calls.filter(waiter.matches).count >= waiter.count else { return false }
                ready.append(waiter.resume)
                return true
            }
            return ready
        }
        ready.forEach { $0.resume() }
    }

    /// Returns once at least `count` recorded calls match `matches` (at once
    /// if they already do).
    public func wait(for count: Int = 1, where matches: @escaping @Sendable (Call) -> Bool = { _ in true }) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isReady = state.withLock { state in
                guard state.calls.filter(matches).count < count else { return true }
                state.waiters.append((count, matches, continuation))
                return false
            }
            if isReady { continuation.resume() }
        }
    }
}
