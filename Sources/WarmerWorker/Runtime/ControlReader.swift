import Logging
import PipelineEngine
import RedisKit
import Scheduler
import ServiceLifecycle
import WarmerSupport

/// Follows the queue's control stream as a service and applies its messages
/// to the jobs this worker runs: aborts cancelled jobs, moves re-prioritised
/// ones. Reconnects with backoff. Stops at graceful shutdown, which the
/// service group gives it only after the claimer has drained, so a job
/// cancelled during the drain still stops at once.
struct ControlReader: Service {
    /// The queue whose control stream is followed.
    let source: any WorkSource
    /// The jobs the messages apply to.
    let running: RunningJobs
    /// Told of each turn of the loop (`/healthz`).
    let state: WorkerState
    /// The longest blocking read.
    let idleWait: Duration
    /// Where to start reading: the stream's position taken before the first
    /// claim, so a message about a job this worker claimed always reaches it
    /// (nil: the position when the reader starts).
    var startPosition: String?
    let logger: Logger

    func run() async {
        await cancelWhenGracefulShutdown {
            await follow()
        }
    }

    private func follow() async {
        var position = startPosition
        var backoff = Backoff()
        while !Task.isCancelled {
            state.recordTurn(of: .control)
            do {
                let start: String
                if let position { start = position } else { start = try await source.latestControlPosition() }
                let (messages, next) = try await source.controlMessages(after: start, timeout: idleWait)
                position = next
                backoff.reset()
                for message in messages {
                    await apply(message)
                }
            } catch {
                guard !Task.isCancelled else { return }
                logger.warning("control stream unavailable, retrying", metadata: ["error": "\(error)", "in": "\(backoff.delay)"])
                state.recordTurn(of: .control)
                await backoff.wait()
            }
        }
    }

    private func apply(_ message: ControlStream.Message) async {
        switch message {
        case .cancel(let id):
            if await !running.cancel([id]).isEmpty {
                logger.info("job cancelled; aborting it", metadata: ["job": "\(id)"])
            }
        case .priority(let id, let priority):
            await running.setPriority(ImagePriority(priority), of: id)
        }
    }
}
