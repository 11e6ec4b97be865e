import Synchronization

/// What a test's inbox consumers received, batch by batch, and how many of
/// them have returned from `consume`.
final class ConsumerRecord<Message: Sendable>: Sendable {
    private let state = Mutex<(batches: [[Message]], byConsumer: [Int: [[Message]]], finished: Int)>(([], [:], 0))

    /// Records `batch` as consumer `consumer`'s.
    func record(_ batch: [Message], consumer: Int = 0) {
        state.withLock {
            $0.batches.append(batch)
            $0.byConsumer[consumer, default: []].append(batch)
        }
    }

    /// Records that a consumer returned from `consume`.
    func finish() {
        state.withLock { $0.finished += 1 }
    }

    /// Every batch, in the order they were handled.
    var batches: [[Message]] { state.withLock { $0.batches } }

    /// The batches consumer `consumer` handled.
    func batches(of consumer: Int) -> [[Message]] { state.withLock { $0.byConsumer[consumer] ?? [] } }

    /// How many consumers have returned.
    var finished: Int { state.withLock { $0.finished } }
}
