import Logging
import ServiceLifecycle
import UnixSignals

/// The second stop signal: the service group turns the first SIGTERM or
/// SIGINT into a graceful shutdown (a drain of up to the grace period);
/// this service counts the signals and, at the second, cancels every job
/// still held, which releases each to the queue at once for another worker,
/// and the process exits as soon as the releases are written.
struct ForcedRelease: Service {
    /// The stop signals counted (`Worker.Configuration.shutdownSignals`).
    let signals: [UnixSignal]
    let running: RunningJobs
    let logger: Logger

    func run() async {
        let signals = await UnixSignalsSequence(trapping: signals)
        await cancelWhenGracefulShutdown {
            var received = 0
            for await signal in signals {
                received += 1
                guard received >= 2 else { continue }
                let held = await running.count
                logger.warning("second stop signal: releasing every held job now", metadata: ["signal": "\(signal)", "jobs": "\(held)"])
                await running.letGoOfAll()
            }
        }
    }
}
