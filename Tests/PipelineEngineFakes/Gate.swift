import Foundation

/// A gate a fake's blocking work waits at (on a pipeline queue's dedicated
/// thread) until the test opens it. Open from the start unless made closed.
public final class Gate: @unchecked Sendable {
    // @unchecked: `isOpen` is only read and written while `condition` is locked.
    private let condition = NSCondition()
    private var isOpen: Bool

    /// A gate, closed unless `open` is true.
    public init(open: Bool = false) {
        isOpen = open
    }

    /// Lets every waiting and future caller through.
    public func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks the calling thread until the gate is open.
    func pass() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }
}
