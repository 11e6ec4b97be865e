import Foundation
import Logging
import RedisKit
import Scheduler
import ServiceLifecycle
import WarmerSupport

/// The worker's claim loop as a service: claims jobs by priority while
/// slots are free, runs each in a lane (a child task that keeps its slot
/// busy with the jobs claimed while finishing the previous one), and
/// drains on graceful shutdown.
///
/// An idle claimer blocks on the queue's intake list instead of polling. On
/// graceful shutdown (the first SIGTERM or SIGINT) it claims nothing more,
/// lets running jobs finish for up to `gracePeriod`, then cancels what is
/// left, which releases it to the queue; `run()` returns when every lane
/// has ended. While the cache folder takes no writes it claims nothing and
/// checks the folder again every few seconds.
struct JobClaimer: Service {
    /// The queue jobs are claimed from.
    let source: any WorkSource
    /// Runs one job to its end.
    let runner: JobRunner
    /// The jobs held now, one per busy slot.
    let running: RunningJobs
    /// Draining, the cache folder's state, the loop's turns.
    let state: WorkerState
    /// Checked again while the cache folder takes no writes.
    let cacheHealth: CacheFolderHealth
    /// This worker's id, which its leases carry.
    let workerID: String
    /// The longest wait on the intake list while idle.
    let idleWait: Duration
    /// How long held jobs get to finish after the stop signal (`--grace-period`).
    let gracePeriod: Duration
    /// What the grace period and the cache folder's re-checks run on.
    let clock: any TimerClock
    let logger: Logger

    /// How often a folder that took no writes is checked again.
    static let cacheRecheckInterval: Duration = .seconds(5)

    func run() async {
        // Said here, not before the service group runs: the group traps the
        // stop signals before it starts any service, so a supervisor that
        // stops the worker as soon as it reads this line gets a graceful
        // stop, not a death by SIGTERM's default action.
        logger.info("started", metadata: [
            "worker": "\(workerID)", "queue": "\(source.name)", "concurrency": "\(running.capacity)",
        ])
        await withDiscardingTaskGroup { lanes in
            await withTaskCancellationOrGracefulShutdownHandler {
                await claimUntilDraining(lanes: &lanes)
            } onCancelOrGracefulShutdown: { [state, running, clock] in
                state.startDraining(at: clock.now)
                // The handler is synchronous: one hop to the actor wakes a
                // claim loop waiting for a slot (one that has not begun to
                // wait yet sees the drain and does not).
                Task { await running.wakeSlotWaiters() }
            }
            // Draining is the claimer's work from now on: it counts as turning.
            state.recordParked(.claims)
            let held = await running.count
            guard !Task.isCancelled else {
                // The group was cancelled (a service failed, or the graceful
                // shutdown outlasted its limit): no grace period.
                logger.warning("worker cancelled: releasing held jobs now", metadata: ["running": "\(held)"])
                await running.letGoOfAll()
                return
            }
            logger.info("stopping: no new jobs", metadata: ["running": "\(held)", "grace_period": "\(gracePeriod)"])
            // The grace period runs from the stop signal, however long the
            // claim loop took to notice it; the lanes end by themselves when
            // their jobs do.
            let deadline = (state.drainStartedAt ?? clock.now) + gracePeriod
            lanes.addTask { await releaseUnfinished(at: deadline) }
        }
    }

    /// Returns when no job is held, or releases the jobs still held at
    /// `deadline` (or at once, when the worker is cancelled).
    private func releaseUnfinished(at deadline: ContinuousClock.Instant) async {
        guard await running.count > 0 else { return }
        await withTaskGroup(of: Bool.self) { race in
            race.addTask { [running] in
                await running.waitUntilEmpty()
                return false
            }
            race.addTask { [clock] in
                // Past the deadline, or cancelled: release now.
                try? await clock.sleep(until: deadline, tolerance: nil)
                return true
            }
            let isOver = await race.next() ?? false
            race.cancelAll()
            // (When it is over, the empty-waiter ends once the released jobs' lanes have.)
            let held = await running.count
            guard isOver, held > 0 else { return }
            await running.letGoOfAll()
            logger.warning("grace period over: releasing unfinished jobs", metadata: ["running": "\(held)"])
        }
    }

    private func claimUntilDraining(lanes: inout DiscardingTaskGroup) async {
        var backoff = Backoff()
        while !state.isDraining {
            state.recordParked(.claims)
            await running.waitForFreeSlot(unless: { [state] in state.isDraining })
            state.recordTurn(of: .claims)
            guard !state.isDraining else { break }
            if state.cacheProblem != nil {
                await waitForWritableCache()
                continue
            }
            do {
                let jobs = try await source.claim(upTo: await running.freeSlots, worker: workerID)
                backoff.reset()
                if jobs.isEmpty {
                    // A stop ends the wait at once rather than after it (the
                    // wait's effect stays in Redis: `WorkSource.waitForWork`).
                    _ = try await cancelWhenGracefulShutdown { [source, idleWait] in
                        try await source.waitForWork(timeout: idleWait)
                    }
                    continue
                }
                for job in jobs {
                    await running.add(job)
                    lanes.addTask { await runLane(from: job) }
                }
            } catch {
                logger.warning("queue unavailable, retrying", metadata: ["error": "\(error)", "in": "\(backoff.delay)"])
                await backoff.wait()
            }
        }
    }

    /// Runs `job` in a slot, then every job claimed while finishing the
    /// previous one, so a busy slot feeds itself without a separate claim.
    /// The slot frees when the queue is empty or the worker drains.
    private func runLane(from job: Job) async {
        var current = job
        while true {
            let next = await runner.run(current, claimsNext: { [state] in !state.isDraining && state.cacheProblem == nil })
            await running.replace(current.id, with: next)
            guard let next else { return }
            current = next
        }
    }

    /// Claims nothing until the cache folder takes writes again (or the worker drains).
    private func waitForWritableCache() async {
        try? await clock.sleep(for: Self.cacheRecheckInterval)
        guard let problem = cacheHealth.problem() else {
            if state.setCacheProblem(nil) {
                logger.notice("cache folder writable again; claiming jobs", metadata: ["cache_dir": "\(cacheHealth.directory.path)"])
            }
            return
        }
        state.setCacheProblem(problem)
    }
}
