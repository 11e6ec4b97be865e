import Synchronization

/// The limit on event streams open at once (`max-event-streams`): each
/// holds a connection and a subscription, so past the limit a new one is
/// refused with 503 and `Retry-After` rather than slowing every other.
final class EventStreamPermits: Sendable {
    /// One open stream's place; given back when the stream's response is done with it.
    final class Permit: Sendable {
        private let permits: EventStreamPermits

        fileprivate init(_ permits: EventStreamPermits) {
            self.permits = permits
        }

        deinit {
            permits.open.subtract(1, ordering: .relaxed)
        }
    }

    let limit: Int
    fileprivate let open = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// A place for one more stream.
    /// - Throws: a 503 `too_many_streams` problem when `limit` are open.
    func acquire() throws -> Permit {
        guard open.add(1, ordering: .relaxed).newValue <= limit else {
            open.subtract(1, ordering: .relaxed)
            throw Problem("too_many_streams", .serviceUnavailable, "Too many event streams are open",
                          detail: "this server serves at most \(limit) at once (max-event-streams); try again shortly",
                          headers: [.retryAfter: "5"])
        }
        return Permit(self)
    }

    /// Streams open now.
    var openCount: Int { open.load(ordering: .relaxed) }
}
