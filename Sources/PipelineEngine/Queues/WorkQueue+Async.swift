import Synchronization

extension WorkQueue {
    /// Waits, in the queue's priority order, for a free slot and returns the
    /// `Finish` that releases it; `nil` when the calling task is cancelled
    /// first (the waiting item then leaves the queue).
    ///
    /// For asynchronous work written as straight-line code: the caller runs
    /// its operation in its own task (so cancelling that task reaches it),
    /// then calls the returned `Finish`.
    ///
    /// - Parameter register: receives the waiting item at once, e.g. so that
    ///   a `PipelineTask` moves it when its priority changes.
    func slot(priority: ImagePriority, register: (WorkItem) -> Void) async -> WorkItem.Finish? {
        let handoff = SlotHandoff()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard handoff.wait(with: continuation) else { return }
                let item = enqueue(priority: priority) { finish in
                    // Started: hand the slot over, unless cancellation won.
                    if !handoff.resume(returning: finish) { finish() }
                }
                register(item)
                handoff.track(item)
            }
        } onCancel: {
            handoff.cancel()
        }
    }
}

/// The meeting point of `WorkQueue.slot`'s three parties: the waiting
/// caller, the queue starting the item, and cancellation. Whichever of the
/// start and the cancellation comes first resumes the caller, exactly once.
private final class SlotHandoff: Sendable {
    private struct State {
        var continuation: CheckedContinuation<WorkItem.Finish?, Never>?
        var item: WorkItem?
        var isCancelled = false
    }

    private let state = Mutex(State())

    /// Records the caller's continuation, before the item is enqueued.
    /// False, with the caller resumed with `nil`, when cancellation came first.
    func wait(with continuation: CheckedContinuation<WorkItem.Finish?, Never>) -> Bool {
        let cancelled = state.withLock { state in
            if !state.isCancelled { state.continuation = continuation }
            return state.isCancelled
        }
        if cancelled { continuation.resume(returning: nil) }
        return !cancelled
    }

    /// Records the waiting item; cancels it if cancellation came first.
    func track(_ item: WorkItem) {
        let cancelled = state.withLock { state in
            state.item = item
            return state.isCancelled
        }
        if cancelled { item.cancel() }
    }

    /// Hands the slot to the caller. False when the caller was resumed
    /// already (cancelled): the slot must be released.
    func resume(returning finish: @escaping WorkItem.Finish) -> Bool {
        guard let continuation = state.withLock({ $0.continuation.take() }) else { return false }
        continuation.resume(returning: finish)
        return true
    }

    /// Cancels the wait: the item leaves the queue and the caller gets `nil`
    /// (unless the item started first, in which case the caller has its slot).
    func cancel() {
        let (continuation, item) = state.withLock { state in
            state.isCancelled = true
            return (state.continuation.take(), state.item)
        }
        item?.cancel()
        continuation?.resume(returning: nil)
    }
}
