import Synchronization

/// Live `SharedWork` by key: the heart of coalescing.
///
/// `value(for:)` joins the running work for a key or starts it. With
/// coalescing disabled every call starts its own work.
final class WorkPool<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let works = Mutex<[Key: SharedWork<Value>]>([:])
    private let nextSubscriberID = Atomic<UInt64>(0)
    private let isCoalescingEnabled: Bool

    init(isCoalescingEnabled: Bool) {
        self.isCoalescingEnabled = isCoalescingEnabled
    }

    /// The number of pieces of work running now.
    var count: Int { works.withLock { $0.count } }

    /// Waits for the outcome of the work for `key`, starting it with
    /// `operation` when none is running. Cancelling the calling task leaves
    /// the work, which stops when nobody else waits for it.
    func value(
        for key: Key, request: ImageRequest,
        progress: @escaping SharedWork<Value>.Progress,
        operation: @escaping SharedWork<Value>.Operation
    ) async -> SharedWork<Value>.Outcome {
        let subscriberID = nextSubscriberID.add(1, ordering: .relaxed).newValue
        let joined = Mutex<SharedWork<Value>?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (work, isNew) = join(key: key, subscriberID: subscriberID, request: request,
                                         progress: progress, continuation: continuation)
                joined.withLock { $0 = work }
                if isNew { work.start(priority: Task.currentPriority, operation) }
                // Cancelled before `joined` was set: the handler found nothing to leave.
                if Task.isCancelled { work.unsubscribe(id: subscriberID) }
            }
        } onCancel: {
            joined.withLock { $0 }?.unsubscribe(id: subscriberID)
        }
    }

    private func join(
        key: Key, subscriberID: UInt64, request: ImageRequest,
        progress: @escaping SharedWork<Value>.Progress,
        continuation: CheckedContinuation<SharedWork<Value>.Outcome, Never>
    ) -> (SharedWork<Value>, isNew: Bool) {
        guard isCoalescingEnabled else {
            let work = SharedWork<Value>(onEnd: { _ in })
            _ = work.subscribe(id: subscriberID, request: request, onProgress: progress, continuation: continuation)
            return (work, true)
        }
        return works.withLock { works in
            if let existing = works[key],
               existing.subscribe(id: subscriberID, request: request, onProgress: progress, continuation: continuation) {
                return (existing, false)
            }
            let work = SharedWork<Value>(onEnd: { [weak self] ended in self?.remove(ended, for: key) })
            _ = work.subscribe(id: subscriberID, request: request, onProgress: progress, continuation: continuation)
            works[key] = work
            return (work, true)
        }
    }

    private func remove(_ work: SharedWork<Value>, for key: Key) {
        works.withLock { works in
            if works[key] === work { works[key] = nil }
        }
    }
}
