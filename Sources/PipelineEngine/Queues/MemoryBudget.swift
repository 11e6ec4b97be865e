import Foundation
import Synchronization

/// A budget of decoded-image bytes in flight, shared by every decode of one
/// pipeline: a large image waits for room instead of growing the process.
///
/// A decode estimates its pixels from the image header before it decodes
/// anything and `reserve`s that many bytes, waiting (on its own decoding
/// thread, never the cooperative pool) until they fit. The reservation then
/// travels with the decoded image and ends when the image is released, so
/// images waiting between stages count too. Processing outputs are `charge`d
/// without waiting: their inputs hold budget already, and waiting for it
/// there could deadlock. Reservations are granted first come, first served,
/// so small images cannot starve a large one.
///
/// Written here rather than taken from a package: it is a counting
/// semaphore over bytes with FIFO order and a cancellation check, which no
/// Swift server package offers for blocking threads.
public final class MemoryBudget: Sendable {
    /// The budget, in bytes.
    public let capacity: Int

    private struct State {
        var used = 0
        /// Tickets of the reservations waiting, in arrival order.
        var waiting: [Int] = []
        var nextTicket = 0
        /// The most bytes ever in use at once.
        var peak = 0
    }

    private let state = Mutex(State())
    /// Woken whenever bytes are released.
    private let released = NSCondition()

    /// A budget of `capacity` bytes.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Bytes reserved or charged now.
    public var used: Int { state.withLock { $0.used } }
    /// The most bytes in use at once so far.
    public var peak: Int { state.withLock { $0.peak } }

    /// Why a reservation was not granted.
    enum Refusal: Error, Equatable {
        /// The request is larger than the whole budget.
        case largerThanBudget
        /// `shouldStop` said so while waiting.
        case stopped
    }

    /// Blocks until `bytes` fit in the budget and reserves them. Checks
    /// `shouldStop` at least every 100 ms while waiting (a cancelled task).
    /// - Throws: `largerThanBudget` at once when `bytes` exceeds the capacity.
    func reserve(_ bytes: Int, shouldStop: () -> Bool) throws(Refusal) -> Reservation {
        let bytes = max(0, bytes)
        guard bytes <= capacity else { throw .largerThanBudget }
        let ticket = state.withLock { state in
            defer { state.nextTicket += 1 }
            state.waiting.append(state.nextTicket)
            return state.nextTicket
        }
        released.lock()
        defer { released.unlock() }
        while true {
            let granted = state.withLock { state -> Bool in
                guard state.waiting.first == ticket, state.used + bytes <= capacity else { return false }
                state.waiting.removeFirst()
                state.used += bytes
                state.peak = max(state.peak, state.used)
                return true
            }
            if granted {
                // The next in line may fit too.
                released.broadcast()
                return Reservation(budget: self, bytes: bytes)
            }
            if shouldStop() {
                state.withLock { $0.waiting.removeAll { $0 == ticket } }
                released.broadcast()
                throw .stopped
            }
            _ = released.wait(until: Date(timeIntervalSinceNow: 0.1))
        }
    }

    /// Adds `bytes` to the budget in use at once, even past its capacity.
    func charge(_ bytes: Int) -> Reservation {
        let bytes = max(0, bytes)
        state.withLock { state in
            state.used += bytes
            state.peak = max(state.peak, state.used)
        }
        return Reservation(budget: self, bytes: bytes)
    }

    fileprivate func release(_ bytes: Int) {
        state.withLock { $0.used -= bytes }
        released.lock()
        released.broadcast()
        released.unlock()
    }

    /// Bytes held in a `MemoryBudget`, given back when the reservation is
    /// released (or resized).
    final class Reservation: Sendable {
        private let budget: MemoryBudget
        private let bytes: Mutex<Int>

        fileprivate init(budget: MemoryBudget, bytes: Int) {
            self.budget = budget
            self.bytes = Mutex(bytes)
        }

        /// Shrinks the reservation to `newBytes` (what an image really
        /// takes, once decoded); never grows it.
        func shrink(to newBytes: Int) {
            let freed = bytes.withLock { bytes in
                let freed = max(0, bytes - max(0, newBytes))
                bytes -= freed
                return freed
            }
            if freed > 0 { budget.release(freed) }
        }

        deinit {
            budget.release(bytes.withLock { $0 })
        }
    }
}
