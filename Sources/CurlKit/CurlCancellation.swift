import Synchronization

/// A thread-safe cancel flag shared by the caller and the curl thread.
package final class CurlCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A flag not yet raised.
    package init() {}

    /// Whether `cancel()` was called.
    package var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Raises the flag; the loop aborts the transfer on its next turn (see `CurlMultiLoop.wake()`).
    package func cancel() { flag.store(true, ordering: .releasing) }
}
