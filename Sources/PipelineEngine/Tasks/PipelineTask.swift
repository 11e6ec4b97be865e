import Synchronization

/// A node of the pipeline's task graph: one piece of work — fetching data,
/// decoding, one processing step, encoding — that produces one value and is
/// shared by every subscriber that needs it.
///
/// After Nuke's `AsyncTask`:
/// - **Priority.** The task's priority is the highest of its subscribers',
///   recomputed on every subscribe, unsubscribe and priority change, and
///   pushed to its dependency and to its queued operation.
/// - **Cancellation.** When the last subscriber leaves before the end, the
///   task is disposed: its queued operation is cancelled, running work is
///   told to stop (`onCancel` hooks), and its dependency subscription is
///   dropped — which stops upstream work only where nobody else needs it.
/// - **Lifetime.** The first subscriber starts the work (`starter`). Once the
///   task has sent its value or error, or was disposed, it accepts no new
///   subscribers: `subscribe` returns `nil`, and a `TaskPool` makes a new one.
///
/// Handlers run outside the lock, on whichever thread produced the event.
final class PipelineTask<Value: Sendable>: Sendable {
    /// What a subscriber hears.
    enum Event: Sendable {
        /// Bytes of the underlying download so far, and the total when known.
        case progress(completed: Int64, total: Int64?)
        /// The underlying download failed and will be tried again.
        case retrying(DownloadRetry)
        /// The task's value; nothing follows.
        case value(Value)
        /// The task failed; nothing follows.
        case error(ImagePipelineError)
    }

    typealias Handler = @Sendable (Event) -> Void

    /// The requests a subscriber stands for: a caller's own request, or,
    /// for a dependent task, the requests of that task's subscribers,
    /// evaluated when asked (subscribers come and go).
    typealias Origins = @Sendable () -> [ImageRequest]

    private struct Subscriber {
        var priority: ImagePriority
        let origins: Origins
        let handler: Handler
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextSubscriberID = 0
        var priority: ImagePriority = .veryLow
        var isStarted = false
        var isEnded = false
        var dependency: AnySubscription?
        var operation: WorkItem?
        var cancelHooks: [@Sendable () -> Void] = []
        var lastProgress: (Int64, Int64?)?
    }

    private let state = Mutex(State())
    private let starter: @Sendable (PipelineTask<Value>) -> Void
    /// Called once when the task ends (value, error or disposal), outside any lock.
    private let onEnd: @Sendable (PipelineTask<Value>) -> Void

    /// Creates a task that runs `starter` when its first subscriber joins.
    init(
        onEnd: @escaping @Sendable (PipelineTask<Value>) -> Void = { _ in },
        starter: @escaping @Sendable (PipelineTask<Value>) -> Void
    ) {
        self.onEnd = onEnd
        self.starter = starter
    }

    // MARK: Subscribers

    /// Joins the task. Returns `nil` when it has already ended.
    func subscribe(priority: ImagePriority, origins: @escaping Origins, _ handler: @escaping Handler) -> Subscription? {
        let joined: (id: Int, start: Bool, progress: (Int64, Int64?)?, change: PriorityChange?)? = state.withLock { state in
            guard !state.isEnded else { return nil }
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.subscribers[id] = Subscriber(priority: priority, origins: origins, handler: handler)
            let start = !state.isStarted
            state.isStarted = true
            return (id, start, state.lastProgress, Self.updatePriority(&state))
        }
        guard let joined else { return nil }
        joined.change?.apply()
        if joined.start {
            starter(self)
        } else if let (completed, total) = joined.progress {
            // A late subscriber hears where the work already is.
            handler(.progress(completed: completed, total: total))
        }
        return Subscription(task: self, id: joined.id)
    }

    /// A subscriber's handle on the task.
    struct Subscription: Sendable {
        let task: PipelineTask<Value>
        let id: Int

        /// Changes this subscriber's priority (and so maybe the task's).
        func setPriority(_ priority: ImagePriority) { task.setPriority(priority, of: id) }
        /// Leaves the task; the last subscriber to leave disposes it.
        func unsubscribe() { task.unsubscribe(id) }
        /// Type-erased, for a task holding it as its dependency.
        var erased: AnySubscription { AnySubscription(setPriority: setPriority, unsubscribe: unsubscribe) }
    }

    private func setPriority(_ priority: ImagePriority, of id: Int) {
        let change: PriorityChange? = state.withLock { state in
            guard !state.isEnded, state.subscribers[id] != nil else { return nil }
            state.subscribers[id]?.priority = priority
            return Self.updatePriority(&state)
        }
        change?.apply()
    }

    private func unsubscribe(_ id: Int) {
        let disposal: (dependency: AnySubscription?, operation: WorkItem?, hooks: [@Sendable () -> Void])?
        var change: PriorityChange?
        disposal = state.withLock { state in
            guard state.subscribers.removeValue(forKey: id) != nil, !state.isEnded else { return nil }
            guard state.subscribers.isEmpty else {
                change = Self.updatePriority(&state)
                return nil
            }
            state.isEnded = true
            defer { state.dependency = nil; state.operation = nil; state.cancelHooks = [] }
            return (state.dependency, state.operation, state.cancelHooks)
        }
        change?.apply()
        guard let disposal else { return }
        disposal.operation?.cancel()
        for hook in disposal.hooks { hook() }
        disposal.dependency?.unsubscribe()
        onEnd(self)
    }

    // MARK: For the work

    /// The task's priority now: the highest of its subscribers'.
    var priority: ImagePriority { state.withLock { $0.priority } }

    /// The requests the current subscribers stand for, down to the callers'
    /// own: what the `DataCachePolicy` is applied to.
    var requests: [ImageRequest] {
        state.withLock { $0.subscribers.values.map(\.origins) }.flatMap { $0() }
    }

    /// Whether the task was disposed or has finished.
    var isEnded: Bool { state.withLock { $0.isEnded } }

    /// Records the subscription to the task this one depends on: it follows
    /// this task's priority and is dropped on disposal.
    func setDependency(_ dependency: AnySubscription?) {
        guard let dependency else { return }
        let (ended, priority) = state.withLock { state in
            if !state.isEnded { state.dependency = dependency }
            return (state.isEnded, state.priority)
        }
        if ended { dependency.unsubscribe() } else { dependency.setPriority(priority) }
    }

    /// Records `dependency` unless the task has one already, which then
    /// stays (and `dependency` is dropped). For a check whose outcome can
    /// arrive inside the call that subscribes to it, before the caller has the
    /// subscription back: the work the outcome started is the dependency that
    /// counts (`ImageStage`'s variant check).
    func setDependencyUnlessSet(_ dependency: AnySubscription) {
        let (kept, ended, priority) = state.withLock { state in
            let kept = state.isEnded || state.dependency == nil
            if kept && !state.isEnded { state.dependency = dependency }
            return (kept, state.isEnded, state.priority)
        }
        if !kept || ended { dependency.unsubscribe() } else { dependency.setPriority(priority) }
    }

    /// Records the queued operation doing this task's work: it follows the
    /// task's priority and is cancelled on disposal. It is moved to the
    /// task's current priority at once (as `setDependency` does): the
    /// caller enqueued it at the priority it read earlier, and a change in
    /// between would otherwise be lost.
    func setOperation(_ operation: WorkItem) {
        let (ended, priority) = state.withLock { state in
            if !state.isEnded { state.operation = operation }
            return (state.isEnded, state.priority)
        }
        if ended { operation.cancel() } else { operation.setPriority(priority) }
    }

    /// Runs `hook` when the task is disposed (at once if it already was).
    func onCancel(_ hook: @escaping @Sendable () -> Void) {
        let ended = state.withLock { state in
            if !state.isEnded { state.cancelHooks.append(hook) }
            return state.isEnded
        }
        if ended { hook() }
    }

    /// Sends progress to every subscriber.
    func send(progress completed: Int64, total: Int64?) {
        let handlers: [Handler] = state.withLock { state in
            guard !state.isEnded else { return [] }
            state.lastProgress = (completed, total)
            return state.subscribers.values.map(\.handler)
        }
        for handler in handlers { handler(.progress(completed: completed, total: total)) }
    }

    /// Tells every subscriber that the download will be tried again.
    func send(retry: DownloadRetry) {
        let handlers: [Handler] = state.withLock { state in
            state.isEnded ? [] : state.subscribers.values.map(\.handler)
        }
        for handler in handlers { handler(.retrying(retry)) }
    }

    /// Handles an event of the task this one depends on: progress, retries and errors
    /// pass through to this task's subscribers, a value goes to `onValue`.
    func relay<Input: Sendable>(_ event: PipelineTask<Input>.Event, onValue: (Input) -> Void) {
        switch event {
        case .progress(let completed, let total): send(progress: completed, total: total)
        case .retrying(let retry): send(retry: retry)
        case .error(let error): send(.failure(error))
        case .value(let value): onValue(value)
        }
    }

    /// Ends the task with its value or error, and tells every subscriber.
    func send(_ result: Result<Value, ImagePipelineError>) {
        let handlers: [Handler]? = state.withLock { state in
            guard !state.isEnded else { return nil }
            state.isEnded = true
            defer {
                state.subscribers.removeAll()
                state.dependency = nil
                state.operation = nil
                state.cancelHooks = []
            }
            return state.subscribers.values.map(\.handler)
        }
        guard let handlers else { return }
        onEnd(self)
        let event: Event = switch result {
        case .success(let value): .value(value)
        case .failure(let error): .error(error)
        }
        for handler in handlers { handler(event) }
    }

    // MARK: Priority

    /// What to tell the dependency and the operation after a priority change.
    private struct PriorityChange {
        let priority: ImagePriority
        let dependency: AnySubscription?
        let operation: WorkItem?

        func apply() {
            operation?.setPriority(priority)
            dependency?.setPriority(priority)
        }
    }

    private static func updatePriority(_ state: inout State) -> PriorityChange? {
        let newPriority = state.subscribers.values.map(\.priority).max() ?? state.priority
        guard newPriority != state.priority else { return nil }
        state.priority = newPriority
        return PriorityChange(priority: newPriority, dependency: state.dependency, operation: state.operation)
    }
}
