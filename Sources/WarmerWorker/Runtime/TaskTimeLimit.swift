import PipelineEngine
import Synchronization
import WarmerSupport

/// Cancels an `ImageTask` that is still running when its time limit passes,
/// and tells afterwards whether that is why it ended.
///
/// The limit covers everything the task does: waiting for a rate-limit
/// token or a connection, every download attempt and the backoff or
/// `Retry-After` wait between them, decoding, processing, encoding and
/// writing. libcurl's own timeouts (connect, low speed, total) end a single
/// attempt; this ends the whole task, so a slow origin holds a worker's slot
/// for at most the limit (`--job-timeout`, or a job's `timeout`).
package final class TaskTimeLimit: Sendable {
    /// The stable error code of a task its limit ended (events, `warm` output).
    package static let errorCode = "deadline_exceeded"

    /// The time the task was given.
    let limit: Duration
    private let state = Mutex<State>(State())

    private struct State {
        var hasExpired = false
        var watchdog: Task<Void, Never>?
    }

    /// Starts counting on `clock`: `task` is cancelled when `limit` passes before `stop()`.
    package init(_ limit: Duration, on clock: any TimerClock = ContinuousClock(), cancelling task: ImageTask) {
        self.limit = limit
        // (The watchdog holds the limit until it fires or `stop()` cancels it.)
        let watchdog = Task { [self] in
            do { try await clock.sleep(for: limit) } catch { return }
            state.withLock { $0.hasExpired = true }
            task.cancel()
        }
        state.withLock { $0.watchdog = watchdog }
    }

    /// Stops counting (the task ended).
    package func stop() {
        state.withLock { $0.watchdog }?.cancel()
    }

    /// Whether the limit passed and cancelled the task. A task that ended on
    /// its own just before keeps its own outcome: check this only when the
    /// task ended as cancelled.
    package var hasExpired: Bool { state.withLock { $0.hasExpired } }

    /// The human-readable reason for `errorCode`.
    package var message: String {
        "Not finished within its time limit of \(limit.components.seconds) s (every download attempt and wait included)"
    }
}
