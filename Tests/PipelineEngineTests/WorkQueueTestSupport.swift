import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import PipelineEngine

/// An integer shared between threads.
final class Counter: Sendable {
    private let atomic = Atomic<Int>(0)

    var value: Int { atomic.load(ordering: .sequentiallyConsistent) }

    /// Adds `delta` and returns the new value.
    @discardableResult
    func add(_ delta: Int) -> Int { atomic.add(delta, ordering: .sequentiallyConsistent).newValue }

    /// Raises the value to `candidate` if it is larger.
    func raise(to candidate: Int) {
        var current = value
        while candidate > current {
            let (exchanged, original) = atomic.compareExchange(
                expected: current, desired: candidate, ordering: .sequentiallyConsistent)
            if exchanged { return }
            current = original
        }
    }
}

/// Strings appended from any thread, in order.
final class Log: Sendable {
    private let storage = Mutex<[String]>([])
    var entries: [String] { storage.withLock { $0 } }
    func append(_ entry: String) { storage.withLock { $0.append(entry) } }
}

/// How often each numbered operation ran.
final class Runs: Sendable {
    private let storage: Mutex<[Int]>
    init(count: Int) { storage = Mutex(Array(repeating: 0, count: count)) }
    var counts: [Int] { storage.withLock { $0 } }
    var total: Int { storage.withLock { $0.reduce(0, +) } }
    func record(_ index: Int) { storage.withLock { $0[index] += 1 } }
}

/// An object whose release a test can observe through a weak reference.
final class Token: Sendable, CustomStringConvertible {
    var description: String { "token" }
}

/// Asynchronous operations that hold their slot until the test finishes them.
final class Holders: Sendable {
    private let state = Mutex<(started: [String], finishes: [String: WorkItem.Finish])>(([], [:]))

    /// The labels in the order their operations started.
    var started: [String] { state.withLock { $0.started } }

    /// Enqueues an operation labelled `label` at normal priority.
    func enqueue(_ label: String, on queue: WorkQueue) {
        queue.enqueue(priority: .normal) { finish in
            self.state.withLock { state in
                state.started.append(label)
                state.finishes[label] = finish
            }
        }
    }

    /// Waits for `label` to start, then finishes it. False if it never started.
    func finish(_ label: String) async -> Bool {
        guard let finish = await eventuallyValue({ state.withLock { $0.finishes[label] } }) else { return false }
        finish()
        return true
    }

    /// Calls `label`'s finish again.
    func finishAgain(_ label: String) {
        state.withLock { $0.finishes[label] }?()
    }
}
