import Synchronization

/// Set once, from a graceful-shutdown handler, and read by the loop it stops.
final class ShutdownFlag: Sendable {
    private let value = Atomic<Bool>(false)

    /// Whether `set()` was called.
    var isSet: Bool { value.load(ordering: .acquiring) }

    /// Marks the flag.
    func set() {
        value.store(true, ordering: .releasing)
    }
}
