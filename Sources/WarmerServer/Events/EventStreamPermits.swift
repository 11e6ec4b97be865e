import Synchronization

/// The limits on event streams open at once: each holds a connection and a
/// subscription, so past a limit a new one is refused rather than slowing
/// every other. `max-event-streams` bounds the whole server (503 and
/// `Retry-After`); `max-event-streams-per-token` bounds one caller (a
/// token, or a client address without tokens: 429 and `Retry-After`), so
/// that one reader cannot hold every place.
final class EventStreamPermits: Sendable {
    /// One open stream's place; given back when the stream's response is done with it.
    final class Permit: Sendable {
        private let permits: EventStreamPermits
        private let caller: String

        fileprivate init(_ permits: EventStreamPermits, caller: String) {
            self.permits = permits
            self.caller = caller
        }

        deinit {
            permits.release(caller: caller)
        }
    }

    let limit: Int
    let perCaller: Int
    /// Open streams in all, and per caller (callers with none are removed).
    private let state = Mutex<(total: Int, byCaller: [String: Int])>((0, [:]))

    init(limit: Int, perCaller: Int = .max) {
        self.limit = limit
        self.perCaller = perCaller
    }

    /// A place for one more stream of `caller`.
    /// - Throws: a 503 `too_many_streams` problem when `limit` are open, a
    ///   429 one when `caller` already holds `perCaller`.
    func acquire(caller: String = "") throws -> Permit {
        let refusal: Problem? = state.withLock { state in
            if state.total >= limit {
                return Problem("too_many_streams", .serviceUnavailable, "Too many event streams are open",
                               detail: "this server serves at most \(limit) at once (max-event-streams); try again shortly",
                               headers: [.retryAfter: "5"])
            }
            if state.byCaller[caller, default: 0] >= perCaller {
                return Problem("too_many_streams", .tooManyRequests, "Too many event streams are open",
                               detail: "one caller may hold at most \(perCaller) at once (max-event-streams-per-token); close one first",
                               headers: [.retryAfter: "5"])
            }
            state.total += 1
            state.byCaller[caller, default: 0] += 1
            return nil
        }
        if let refusal { throw refusal }
        return Permit(self, caller: caller)
    }

    fileprivate func release(caller: String) {
        state.withLock { state in
            state.total -= 1
            let left = state.byCaller[caller, default: 1] - 1
            state.byCaller[caller] = left > 0 ? left : nil
        }
    }

    /// Streams open now.
    var openCount: Int { state.withLock { $0.total } }
}
