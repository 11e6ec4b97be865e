import Synchronization

/// A flag one task sets and another polls: "the other side is done".
final class CompletionFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func set() { value.store(true, ordering: .sequentiallyConsistent) }

    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}
