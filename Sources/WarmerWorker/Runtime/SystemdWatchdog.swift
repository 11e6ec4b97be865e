import Logging
import ServiceLifecycle

/// The worker's side of a systemd `Type=notify` unit with `WatchdogSec=`:
/// `READY=1` once the worker's services run; every second, `WATCHDOG=1`
/// while every loop turns (the same check as `/healthz`, so systemd
/// restarts a worker whose loops are stuck); `STOPPING=1` once, when the
/// drain begins. The worker runs it only under such a unit (`NOTIFY_SOCKET` set).
///
/// It is the first service of the worker's group, so it is shut down last
/// and keeps the watchdog fed while running jobs drain.
struct SystemdWatchdog: Service {
    let notifier: SystemdNotifier
    let state: WorkerState
    let allowances: LoopAllowances
    let logger: Logger

    func run() async {
        notifier.notify("READY=1\nSTATUS=claiming jobs")
        await cancelWhenGracefulShutdown {
            var toldStopping = false
            var wasStuck = false
            while !Task.isCancelled {
                if state.isDraining, !toldStopping {
                    toldStopping = notifier.notify("STOPPING=1\nSTATUS=draining: finishing or releasing held jobs")
                }
                let stuck = allowances.stuckLoops(in: state)
                if stuck.isEmpty {
                    if notifier.watchdogPeriod != nil { notifier.notify("WATCHDOG=1") }
                } else if !wasStuck {
                    logger.error("loops stuck; no keep-alive for the systemd watchdog", metadata: ["loops": "\(stuck)"])
                }
                wasStuck = !stuck.isEmpty
                try? await Task.sleep(for: .seconds(1))
            }
            // A drain shorter than a tick ends here: say it all the same.
            if !toldStopping { notifier.notify("STOPPING=1") }
        }
    }
}
