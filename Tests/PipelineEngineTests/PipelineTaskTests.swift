import Foundation
import Synchronization
import Testing
@testable import PipelineEngine

/// The task-graph node on its own: priorities, disposal, late subscribers.
@Suite("PipelineTask")
struct PipelineTaskTests {
    let request = ImageRequest(url: URL(string: "https://example.invalid/a.jpg")!)

    /// Records what a dependency subscription is told.
    final class DependencyProbe: Sendable {
        let priorities = Mutex<[ImagePriority]>([])
        let unsubscribed = Atomic<Int>(0)
        var subscription: AnySubscription {
            AnySubscription(setPriority: { p in self.priorities.withLock { $0.append(p) } },
                            unsubscribe: { self.unsubscribed.add(1, ordering: .relaxed) })
        }
    }

    @Test func priorityIsTheHighestSubscribersAndReachesTheDependency() {
        let probe = DependencyProbe()
        let task = PipelineTask<Int>(starter: { $0.setDependency(probe.subscription) })
        let low = task.subscribe(priority: .low, origins: { [request] }) { _ in }!
        let high = task.subscribe(priority: .high, origins: { [request] }) { _ in }!
        #expect(task.priority == .high)
        // When: the high subscriber leaves, then the low one is raised.
        high.unsubscribe()
        #expect(task.priority == .low)
        low.setPriority(.veryHigh)
        // Then
        #expect(task.priority == .veryHigh)
        #expect(probe.priorities.withLock { $0 }.last == .veryHigh)
        #expect(probe.priorities.withLock { $0 }.contains(.high))
    }

    @Test func lastUnsubscribeDisposesTheTaskAndItsDependency() {
        let probe = DependencyProbe()
        let cancelled = Atomic<Bool>(false)
        let ended = Atomic<Bool>(false)
        let task = PipelineTask<Int>(onEnd: { _ in ended.store(true, ordering: .relaxed) }, starter: { task in
            task.setDependency(probe.subscription)
            task.onCancel { cancelled.store(true, ordering: .relaxed) }
        })
        let first = task.subscribe(priority: .normal, origins: { [request] }) { _ in }!
        let second = task.subscribe(priority: .normal, origins: { [request] }) { _ in }!
        first.unsubscribe()
        let cancelledEarly = cancelled.load(ordering: .relaxed)
        #expect(!task.isEnded && !cancelledEarly)
        // When
        second.unsubscribe()
        // Then
        #expect(task.isEnded)
        let cancelledNow = cancelled.load(ordering: .relaxed)
        #expect(cancelledNow)
        let endedNow = ended.load(ordering: .relaxed)
        #expect(endedNow)
        let unsubscribedCount = probe.unsubscribed.load(ordering: .relaxed)
        #expect(unsubscribedCount == 1)
        #expect(task.subscribe(priority: .normal, origins: { [request] }) { _ in } == nil)
    }

    @Test func everySubscriberHearsTheValueAndALateOneHearsTheProgress() {
        let heard = Mutex<[String]>([])
        let task = PipelineTask<Int>(starter: { _ in })
        _ = task.subscribe(priority: .normal, origins: { [request] }) { event in
            if case .value(let value) = event { heard.withLock { $0.append("first \(value)") } }
        }
        task.send(progress: 10, total: 100)
        _ = task.subscribe(priority: .normal, origins: { [request] }) { event in
            switch event {
            case .progress(let completed, _): heard.withLock { $0.append("late progress \(completed)") }
            case .value(let value): heard.withLock { $0.append("late \(value)") }
            case .error, .retrying: break
            }
        }
        task.send(.success(7))
        #expect(Set(heard.withLock { $0 }) == ["first 7", "late progress 10", "late 7"])
        #expect(task.isEnded)
    }

    @Test func poolSharesALiveTaskAndStartsAFreshOneAfterItEnds() {
        let pool = TaskPool<String, Int>(isCoalescingEnabled: true)
        let starts = Atomic<Int>(0)
        let starter: @Sendable (PipelineTask<Int>) -> Void = { _ in starts.add(1, ordering: .relaxed) }
        let a = pool.subscribe("k", priority: .normal, origins: { [request] }, starter: starter) { _ in }
        let b = pool.subscribe("k", priority: .normal, origins: { [request] }, starter: starter) { _ in }
        #expect(a.task === b.task)
        do { let n = starts.load(ordering: .relaxed); #expect(n == 1) }
        a.task.send(.success(1))
        #expect(pool.count == 0)
        let c = pool.subscribe("k", priority: .normal, origins: { [request] }, starter: starter) { _ in }
        #expect(c.task !== a.task)
        do { let n = starts.load(ordering: .relaxed); #expect(n == 2) }
    }

    @Test func anOperationStoredAfterAPriorityChangeWaitsAtTheNewPriority() {
        // Given a queue whose only slot is taken, so that what is enqueued waits
        let queue = WorkQueue(name: "test", maxConcurrentOperationCount: 1)
        let release = DispatchSemaphore(value: 0)
        let blocker = queue.enqueue(priority: .veryHigh) { finish in
            DispatchQueue.global().async { release.wait(); finish() }
        }
        defer { release.signal(); _ = blocker }
        let task = PipelineTask<Int>(starter: { _ in })
        let subscriber = task.subscribe(priority: .low, origins: { [request] }) { _ in }!

        // When the task's work is enqueued at the priority read then, the
        // task is raised before the operation is stored (the interleaving
        // that a concurrent `setPriority` produces), and only then stored
        let operation = queue.enqueue(priority: task.priority) { finish in finish() }
        subscriber.setPriority(.veryHigh)
        task.setOperation(operation)

        // Then the operation waits at the task's current priority
        #expect(task.priority == .veryHigh)
        #expect(operation.priority == .veryHigh)
    }
}
