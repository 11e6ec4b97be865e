import Synchronization

/// Tasks waiting for something a fake will be told of (a job added, a
/// control message sent): each wait ends when the fake wakes it, when its
/// timeout passes, or when its task is cancelled, whichever comes first.
///
/// The timeout only bounds a wait nobody wakes, as a blocking Redis read's
/// does; a test never relies on it.
final class Wakeups: Sendable {
    private struct Waiter {
        let continuation: CheckedContinuation<Bool, Never>
        let timer: Task<Void, Never>
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Waits unless `isReady` holds already.
    ///
    /// `isReady` is checked and the waiter registered under this object's
    /// lock, and the fake calls `wakeAll()` after it changed its own state:
    /// so either the check sees the change or `wakeAll()` finds the waiter.
    /// - Returns: true when woken or ready at once, false on timeout or cancellation.
    func wait(timeout: Duration, isReady: () -> Bool) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let ready = state.withLock { state -> Bool in
                    if isReady() || Task.isCancelled { return true }
                    let timer = Task { [self] in
                        try? await Task.sleep(for: timeout)
                        resume(id, with: false)
                    }
                    state.waiters[id] = Waiter(continuation: continuation, timer: timer)
                    return false
                }
                if ready { continuation.resume(returning: !Task.isCancelled) }
            }
        } onCancel: {
            resume(id, with: false)
        }
    }

    /// Wakes every waiting task (with true).
    func wakeAll() {
        let woken = state.withLock { state in
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in woken {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: true)
        }
    }

    private func resume(_ id: UInt64, with value: Bool) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.timer.cancel()
        waiter.continuation.resume(returning: value)
    }
}
