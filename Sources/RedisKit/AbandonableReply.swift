import Synchronization

/// The reply of a `RedisClient.sendBlocking` call, handed to its caller at
/// most once: by the connection's thread when the command ends, or by the
/// caller's cancellation first, after which the command's own reply is
/// dropped.
final class AbandonableReply: Sendable {
    typealias Continuation = CheckedContinuation<Result<[RedisReply], RedisError>, Never>

    private enum State {
        /// Nobody waits yet; `resume` before the wait (a cancelled task) is kept for it.
        case pending(Result<[RedisReply], RedisError>?)
        case waiting(Continuation)
        case resumed
    }

    private let state = Mutex(State.pending(nil))

    /// Lets `continuation` wait for the reply. Returns false when the reply
    /// came first (the caller's task was already cancelled): `continuation`
    /// has it, and the command need not be sent.
    func wait(with continuation: Continuation) -> Bool {
        let early: Result<[RedisReply], RedisError>? = state.withLock { state in
            guard case .pending(let early) = state else { return nil }
            if let early {
                state = .resumed
                return early
            }
            state = .waiting(continuation)
            return nil
        }
        guard let early else { return true }
        continuation.resume(returning: early)
        return false
    }

    /// Hands `result` to the caller, unless it had one already.
    func resume(with result: Result<[RedisReply], RedisError>) {
        let waiting: Continuation? = state.withLock { state in
            switch state {
            case .pending(nil):
                state = .pending(result)
                return nil
            case .waiting(let continuation):
                state = .resumed
                return continuation
            case .pending, .resumed:
                return nil
            }
        }
        waiting?.resume(returning: result)
    }
}
