import Logging
import RedisKit
import Scheduler
import ServiceLifecycle
import WarmerSupport

/// Applies the control documents clients push onto the queue's commands list
/// (cancel, priority, dead-letter retry and purge, pause, resume: docs/
/// control-documents.md), as a service of its own, so
/// that a document is applied at once even while every slot is busy or the
/// queue is paused.
///
/// Idle, it blocks on the commands list (`BLMOVE` to `commands:pending`, at
/// most `idleWait`) over a client of its own, which also carries its steps;
/// woken or not, it then applies steps until none is left to apply, so a
/// document another worker took and could not finish (it was killed) is
/// finished within `idleWait` by any live worker. Reconnects with backoff.
/// Stops at graceful shutdown: a document in progress stays in Redis for the
/// other workers, or for this one's successor.
struct ControlDocumentApplier: Service {
    /// The queue whose commands list is followed.
    let source: any WorkSource
    /// Told of each turn of the loop (`/healthz`).
    let state: WorkerState
    /// The longest blocking wait.
    let idleWait: Duration
    let logger: Logger

    func run() async {
        await cancelWhenGracefulShutdown {
            await applyUntilCancelled()
        }
    }

    private func applyUntilCancelled() async {
        var backoff = Backoff()
        while !Task.isCancelled {
            state.recordTurn(of: .commands)
            do {
                if try await source.applyControlDocumentStep() == .idle {
                    _ = try await source.waitForControlDocument(timeout: idleWait)
                }
                backoff.reset()
            } catch {
                guard !Task.isCancelled else { return }
                logger.warning("control documents unavailable, retrying", metadata: ["error": "\(error)", "in": "\(backoff.delay)"])
                state.recordTurn(of: .commands)
                await backoff.wait()
            }
        }
    }
}
