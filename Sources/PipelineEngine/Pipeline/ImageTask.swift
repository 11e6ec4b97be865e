import Foundation
import Synchronization

/// One request running in an `ImagePipeline`.
///
/// Observe it through `events` (one consumer), wait for `response`, change
/// its `priority` while it runs, or `cancel()` it. Work shared with other
/// tasks (one download for identical URLs, one resize for identical
/// processors) runs at the highest priority among them and stops only when
/// every task that needs it is cancelled.
public final class ImageTask: Sendable, Identifiable {
    /// The task's identity, unique within the process.
    public let id: UInt64
    /// The request the task runs.
    public let request: ImageRequest
    /// The task's lifecycle, as in Nuke 10: `started`, `progress`…, then
    /// `completed` or `cancelled`, after which the stream ends.
    public let events: AsyncStream<Event>

    /// A lifecycle event.
    public enum Event: Sendable {
        /// The pipeline began work on the task.
        case started
        /// Bytes received so far, and the expected total when known.
        case progress(completed: Int64, total: Int64?)
        /// A download attempt failed with a transient error; another follows
        /// after `retry.delay`.
        case retrying(DownloadRetry)
        /// The task was cancelled; nothing follows.
        case cancelled
        /// The task finished with a response or an error; nothing follows.
        case completed(Result<ImageResponse, ImagePipelineError>)
    }

    private struct State {
        var priority: ImagePriority
        /// The work the task waits on: its subscription to the task graph,
        /// and any queued operation of its own (a disk read).
        var subscriptions: [AnySubscription] = []
        var result: Result<ImageResponse, ImagePipelineError>?
        var waiters: [CheckedContinuation<Result<ImageResponse, ImagePipelineError>, Never>] = []
        var observers: [@Sendable (Result<ImageResponse, ImagePipelineError>) -> Void] = []
    }

    private let state: Mutex<State>
    private let emit: AsyncStream<Event>.Continuation

    init(id: UInt64, request: ImageRequest) {
        self.id = id
        self.request = request
        self.state = Mutex(State(priority: request.priority))
        (self.events, self.emit) = AsyncStream.makeStream(of: Event.self)
        emit.yield(.started)
    }

    /// The task's priority. Raising or lowering it reaches the shared work
    /// it waits on, queued operations included.
    public var priority: ImagePriority {
        get { state.withLock { $0.priority } }
        set {
            let subscriptions = state.withLock { state -> [AnySubscription] in
                guard state.result == nil, state.priority != newValue else { return [] }
                state.priority = newValue
                return state.subscriptions
            }
            for subscription in subscriptions { subscription.setPriority(newValue) }
        }
    }

    /// Cancels the task. Shared work continues while other tasks need it.
    public func cancel() {
        for subscription in finish(with: .failure(.cancelled)) {
            subscription.unsubscribe()
        }
    }

    /// Waits for the task to finish and returns its outcome.
    public var result: Result<ImageResponse, ImagePipelineError> {
        get async {
            await withCheckedContinuation { continuation in
                let result = state.withLock { state in
                    if state.result == nil { state.waiters.append(continuation) }
                    return state.result
                }
                if let result { continuation.resume(returning: result) }
            }
        }
    }

    /// Waits for the task to finish. Throws `ImagePipelineError.cancelled` when cancelled.
    public var response: ImageResponse {
        get async throws(ImagePipelineError) {
            try await result.get()
        }
    }

    // MARK: For the pipeline

    /// Calls `observer` once the task finishes (at once if it has).
    func whenFinished(_ observer: @escaping @Sendable (Result<ImageResponse, ImagePipelineError>) -> Void) {
        let result = state.withLock { state in
            if state.result == nil { state.observers.append(observer) }
            return state.result
        }
        if let result { observer(result) }
    }

    /// Whether the task has finished (or was cancelled).
    var isFinished: Bool { state.withLock { $0.result != nil } }

    /// Adds a subscription doing the task's work: later priority changes
    /// and a cancel reach it. If the task was cancelled meanwhile, the
    /// subscription is dropped at once; otherwise it is given the task's
    /// current priority (the work may have been started at a priority read
    /// before a change).
    func attach(_ subscription: AnySubscription) {
        let (cancelled, priority) = state.withLock { state in
            if state.result == nil { state.subscriptions.append(subscription) }
            return (state.result != nil, state.priority)
        }
        if cancelled {
            subscription.unsubscribe()
        } else {
            subscription.setPriority(priority)
        }
    }

    /// Reports download progress.
    func reportProgress(completed: Int64, total: Int64?) {
        guard state.withLock({ $0.result == nil }) else { return }
        emit.yield(.progress(completed: completed, total: total))
    }

    /// Passes on an event of the work the task waits on: progress, retries, a failure.
    func report<Value>(_ event: PipelineTask<Value>.Event) {
        switch event {
        case .progress(let completed, let total): reportProgress(completed: completed, total: total)
        case .retrying(let retry): reportRetry(retry)
        case .error(let error): finish(with: .failure(error))
        case .value: break
        }
    }

    /// Reports a download attempt that will be retried.
    func reportRetry(_ retry: DownloadRetry) {
        guard state.withLock({ $0.result == nil }) else { return }
        emit.yield(.retrying(retry))
    }

    /// Ends the task (the first outcome wins) and returns the subscriptions
    /// to drop when it was cancelled.
    @discardableResult
    func finish(with result: Result<ImageResponse, ImagePipelineError>) -> [AnySubscription] {
        let ended = state.withLock { state in
            guard state.result == nil else { return nil as State? }
            state.result = result
            defer { state.waiters = []; state.observers = []; state.subscriptions = [] }
            return state
        }
        guard let ended else { return [] }
        if case .failure(.cancelled) = result {
            emit.yield(.cancelled)
        } else {
            emit.yield(.completed(result))
        }
        emit.finish()
        for waiter in ended.waiters { waiter.resume(returning: result) }
        for observer in ended.observers { observer(result) }
        return ended.subscriptions
    }
}
