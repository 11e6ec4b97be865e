/// A growable first-in, first-out ring buffer, the storage of every FIFO in
/// `Queues/`.
///
/// `append` and `popFirst` are O(1) (amortised for `append`, which doubles
/// the capacity when full), unlike `Array.removeFirst`, which is O(n).
/// Capacity is a power of two so that wrapping is a mask, and it is kept
/// when elements leave, as `Array` keeps its capacity.
///
/// A value type with no synchronisation of its own: its owner protects it
/// (a `Mutex`).
struct RingBuffer<Element> {
    /// The slots; `nil` where no element is stored. Its count is zero or a power of two.
    private var storage: [Element?] = []
    /// The index of the first element in `storage`.
    private var head = 0
    /// The number of elements stored.
    private(set) var count = 0

    /// Creates an empty buffer; storage is allocated on the first `append`.
    init() {}

    /// Whether the buffer holds no element.
    var isEmpty: Bool { count == 0 }

    /// The first element, which `popFirst` would return, if any.
    var first: Element? { count == 0 ? nil : storage[head] }

    /// Adds `element` at the back. O(1) amortised.
    mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        storage[(head &+ count) & (storage.count &- 1)] = element
        count &+= 1
    }

    /// Removes and returns the element at the front, or `nil` when empty. O(1).
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head].take()
        count &-= 1
        head = count == 0 ? 0 : (head &+ 1) & (storage.count &- 1)
        return element
    }

    /// Removes every element for which `shouldBeRemoved` returns true,
    /// keeping the others in order. O(n).
    mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        guard count > 0 else { return }
        var kept = RingBuffer()
        kept.storage = Array(repeating: nil, count: storage.count)
        while let element = popFirst() {
            if try !shouldBeRemoved(element) { kept.append(element) }
        }
        self = kept
    }

    /// Doubles the capacity (16 at first), moving the elements to the front
    /// of the new storage in order.
    private mutating func grow() {
        var grown = [Element?](repeating: nil, count: Swift.max(16, storage.count * 2))
        for offset in 0..<count {
            grown[offset] = storage[(head &+ offset) & (storage.count &- 1)].take()
        }
        storage = grown
        head = 0
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
