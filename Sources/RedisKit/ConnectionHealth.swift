import Logging
import Synchronization

/// Whether a client's connections reach Redis, shared by its threads, so
/// that an outage is logged once when it starts and once when it ends,
/// however many connections notice it.
///
/// The line is written under the lock that records the change: two threads
/// seeing an end and a new start at once log them in that order (a thread's
/// `Redis connection lost` never comes before another's `Redis reconnected`
/// that changed the state first).
final class ConnectionHealth: Sendable {
    private let isDown = Mutex(false)
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Records how a round trip ended.
    func record(_ error: RedisError?) {
        switch error {
        case .unreachable(let reason)?, .connection(let reason)?:
            isDown.withLock { isDown in
                guard !isDown else { return }
                isDown = true
                logger.warning("Redis connection lost", metadata: ["error": .string(reason)])
            }
        default:
            // A reply, even an error reply, means the connection works.
            isDown.withLock { isDown in
                guard isDown else { return }
                isDown = false
                logger.info("Redis reconnected")
            }
        }
    }
}
