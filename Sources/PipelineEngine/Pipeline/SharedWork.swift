import Synchronization

/// A piece of work — a download, later a decode or a processing step — that
/// every request for the same key shares.
///
/// Subscribers join while it runs and all receive its progress and outcome.
/// When the last subscriber leaves before the end, the work's task is
/// cancelled (which reaches the download). Once finished, it accepts no new
/// subscribers: a later request starts fresh work.
final class SharedWork<Value: Sendable>: Sendable {
    typealias Outcome = Result<Value, ImagePipelineError>
    typealias Progress = @Sendable (Int64, Int64?) -> Void
    typealias Operation = @Sendable (_ work: SharedWork<Value>) async -> Outcome

    private struct Subscriber {
        let request: ImageRequest
        let onProgress: Progress
        let continuation: CheckedContinuation<Outcome, Never>
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var isFinished = false
        var task: Task<Void, Never>?
        var lastProgress: (Int64, Int64?)?
    }

    private let state = Mutex(State())
    /// Called once when the work ends (finished or abandoned), outside any lock.
    private let onEnd: @Sendable (SharedWork<Value>) -> Void

    init(onEnd: @escaping @Sendable (SharedWork<Value>) -> Void) {
        self.onEnd = onEnd
    }

    /// The requests of the current subscribers.
    var requests: [ImageRequest] {
        state.withLock { state in state.subscribers.values.map { $0.request } }
    }

    /// Adds a subscriber. Returns false when the work has already ended.
    func subscribe(
        id: UInt64, request: ImageRequest, onProgress: @escaping Progress,
        continuation: CheckedContinuation<Outcome, Never>
    ) -> Bool {
        let progress: (Int64, Int64?)?? = state.withLock { state in
            guard !state.isFinished else { return nil }
            state.subscribers[id] = Subscriber(request: request, onProgress: onProgress, continuation: continuation)
            return .some(state.lastProgress)
        }
        guard let progress else { return false }
        // A late subscriber hears where the work already is.
        if let (completed, total) = progress { onProgress(completed, total) }
        return true
    }

    /// Removes a subscriber, resuming it with `.cancelled`. The last one to
    /// leave cancels the work.
    func unsubscribe(id: UInt64) {
        let (subscriber, abandonedTask): (Subscriber?, Task<Void, Never>??) = state.withLock { state in
            guard let subscriber = state.subscribers.removeValue(forKey: id) else { return (nil, nil) }
            guard state.subscribers.isEmpty, !state.isFinished else { return (subscriber, nil) }
            state.isFinished = true
            return (subscriber, .some(state.task))
        }
        subscriber?.continuation.resume(returning: .failure(.cancelled))
        if let abandonedTask {
            abandonedTask?.cancel()
            onEnd(self)
        }
    }

    /// Starts the work. Call once, after the first subscriber joined.
    func start(priority: TaskPriority?, _ operation: @escaping Operation) {
        let task = Task(priority: priority) {
            let outcome = await operation(self)
            self.finish(with: outcome)
        }
        let alreadyAbandoned = state.withLock { state in
            state.task = task
            return state.isFinished
        }
        if alreadyAbandoned { task.cancel() }
    }

    /// Reports progress to every subscriber.
    func reportProgress(completed: Int64, total: Int64?) {
        let handlers = state.withLock { state in
            state.lastProgress = (completed, total)
            return state.subscribers.values.map { $0.onProgress }
        }
        for handler in handlers { handler(completed, total) }
    }

    private func finish(with outcome: Outcome) {
        let subscribers: [Subscriber]? = state.withLock { state in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        guard let subscribers else { return }
        onEnd(self)
        for subscriber in subscribers { subscriber.continuation.resume(returning: outcome) }
    }
}
