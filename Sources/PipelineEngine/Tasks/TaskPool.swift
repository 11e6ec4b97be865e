import Synchronization

/// Live `PipelineTask`s by key: the heart of coalescing.
///
/// `subscribe` joins the live task for a key or creates it. A task leaves the
/// pool when it ends, so a later request starts fresh work. With coalescing
/// disabled every subscription gets its own task.
final class TaskPool<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let tasks = Mutex<[Key: PipelineTask<Value>]>([:])
    private let isCoalescingEnabled: Bool

    init(isCoalescingEnabled: Bool) {
        self.isCoalescingEnabled = isCoalescingEnabled
    }

    /// The number of live tasks (for tests and metrics).
    var count: Int { tasks.withLock { $0.count } }

    /// Subscribes to the live task for `key`, creating it with `starter` when
    /// there is none. The subscription is made outside the pool's lock.
    func subscribe(
        _ key: Key, priority: ImagePriority, origins: @escaping PipelineTask<Value>.Origins,
        starter: @escaping @Sendable (PipelineTask<Value>) -> Void,
        _ handler: @escaping PipelineTask<Value>.Handler
    ) -> PipelineTask<Value>.Subscription {
        guard isCoalescingEnabled else {
            // A fresh task always accepts its first subscriber.
            return PipelineTask(starter: starter).subscribe(priority: priority, origins: origins, handler)!
        }
        while true {
            let task = tasks.withLock { tasks in
                if let live = tasks[key] { return live }
                let task = PipelineTask<Value>(onEnd: { [weak self] ended in self?.remove(ended, for: key) }, starter: starter)
                tasks[key] = task
                return task
            }
            // A task that ended between the lookup and here refuses: try again
            // (its onEnd has removed it, or is about to).
            if let subscription = task.subscribe(priority: priority, origins: origins, handler) {
                return subscription
            }
            remove(task, for: key)
        }
    }

    private func remove(_ task: PipelineTask<Value>, for key: Key) {
        tasks.withLock { tasks in
            if tasks[key] === task { tasks[key] = nil }
        }
    }
}
