import Synchronization

/// The loads `GET /v1/cache?warm=1` runs at once (`warm-concurrency`): a
/// counting semaphore whose waiters take their turn in arrival order, and
/// which refuses a waiter past `maxWaiting` rather than queue without end.
///
/// Waiters are the shared load tasks of `CacheWarmer`, which are never
/// cancelled (a caller that goes away leaves the load to the others), so a
/// wait needs no cancellation handling.
final class WarmSlots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    /// The most loads waiting for a slot.
    let maxWaiting: Int
    private let state: Mutex<State>

    init(slots: Int, maxWaiting: Int) {
        self.maxWaiting = maxWaiting
        state = Mutex(State(free: slots))
    }

    /// Takes a slot, waiting for one if none is free.
    /// - Returns: `false`, at once, when `maxWaiting` loads already wait.
    func acquire() async -> Bool {
        enum Outcome { case acquired, wait, refused }
        let outcome: Outcome = state.withLock { state in
            if state.free > 0 {
                state.free -= 1
                return .acquired
            }
            return state.waiting.count >= maxWaiting ? .refused : .wait
        }
        switch outcome {
        case .acquired: return true
        case .refused: return false
        case .wait:
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    // A slot may have been freed since the check above.
                    if state.free > 0 {
                        state.free -= 1
                        return true
                    }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            return true
        }
    }

    /// Gives a slot back: to the longest waiter, or to the pool.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
