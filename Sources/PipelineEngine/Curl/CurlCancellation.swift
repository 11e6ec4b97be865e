import Synchronization

/// A thread-safe cancel flag shared by the caller and the curl thread.
final class CurlCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    var isCancelled: Bool { flag.load(ordering: .acquiring) }

    func cancel() { flag.store(true, ordering: .releasing) }
}
