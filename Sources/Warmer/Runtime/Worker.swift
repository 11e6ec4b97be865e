import Foundation
import PipelineEngine
import Scheduler

/// The long-running worker: claims jobs by priority, runs them, keeps their
/// leases alive, and stops gracefully.
///
/// An idle worker blocks on the queue's wake-up key instead of polling. On a
/// stop request it claims nothing more, lets running jobs finish for up to
/// `gracePeriod`, then cancels what is left and releases it to the queue.
struct Worker: Sendable {
    /// Tunables of a worker process.
    struct Configuration: Sendable {
        var concurrency = 8
        var gracePeriod: Duration = .seconds(30)
        var idleWait: Duration = .seconds(1)
        var progressInterval: Duration = .milliseconds(250)
    }

    let queue: JobQueue
    let blockingClient: RedisClient
    let pipeline: ImagePipeline
    let configuration: Configuration
    let workerID: String
    let stop: StopSignal
    private let log = Log(component: "worker")

    init(queue: JobQueue, blockingClient: RedisClient, pipeline: ImagePipeline,
         configuration: Configuration, stop: StopSignal) {
        self.queue = queue
        self.blockingClient = blockingClient
        self.pipeline = pipeline
        self.configuration = configuration
        self.stop = stop
        self.workerID = Self.makeWorkerID()
    }

    /// `host:pid:random`, unique per process.
    static func makeWorkerID() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        let suffix = UUID().uuidString.prefix(4).lowercased()
        return "\(host):\(getpid()):\(suffix)"
    }

    /// Runs until a stop is requested and every held job is finished or released.
    func run() async {
        let running = RunningJobs(capacity: configuration.concurrency)
        let runner = JobRunner(
            queue: queue, events: EventStream(queue: queue),
            prefetchers: JobPrefetchers(pipeline: pipeline, concurrency: configuration.concurrency), running: running,
            workerID: workerID, progressInterval: configuration.progressInterval, log: log
        )
        log.info("started", ["worker": workerID, "queue": queue.keys.name, "redis": queue.client.url.description,
                             "concurrency": String(configuration.concurrency)])
        let leaseKeeper = Task { await keepLeases(of: running) }
        // The grace period starts when the stop is requested, whatever the
        // claim loop is doing (it may be waiting for a slot to free).
        let stopHandler = Task { await stopGracefully(running) }
        await claimUntilStopped(running: running, runner: runner)
        await running.waitUntilEmpty()
        stopHandler.cancel()
        leaseKeeper.cancel()
        log.info("stopped", ["worker": workerID])
    }

    /// On a stop request: wakes the claim loop, gives running jobs the grace
    /// period, then cancels what is left, which releases it to the queue.
    private func stopGracefully(_ running: RunningJobs) async {
        await stop.wait()
        log.info("stopping: no new jobs", ["running": String(await running.count)])
        await running.wakeSlotWaiters()
        try? await Task.sleep(for: configuration.gracePeriod)
        guard !Task.isCancelled else { return }
        log.warning("grace period over: releasing unfinished jobs")
        await running.abandon()
    }

    private func claimUntilStopped(running: RunningJobs, runner: JobRunner) async {
        var backoff = Duration.milliseconds(100)
        while !stop.isRequested {
            await running.waitForFreeSlot()
            guard !stop.isRequested else { break }
            do {
                let jobs = try await queue.claim(upTo: await running.freeSlots, worker: workerID)
                backoff = .milliseconds(100)
                if jobs.isEmpty {
                    _ = try await queue.waitForWork(using: blockingClient, timeout: configuration.idleWait)
                    continue
                }
                for job in jobs {
                    await running.add(job)
                    Task { await runLane(from: job, running: running, runner: runner) }
                }
            } catch {
                log.warning("queue unavailable, retrying", ["error": error.description, "in": "\(backoff)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }

    /// Runs `job` in a slot, then every job claimed while finishing the
    /// previous one, so a busy slot feeds itself without a separate claim.
    /// The slot frees when the queue is empty or a stop was requested.
    private func runLane(from job: Job, running: RunningJobs, runner: JobRunner) async {
        var current = job
        while true {
            let next = await runner.run(current, claimsNext: { [stop] in !stop.isRequested })
            await running.replace(current.id, with: next)
            guard let next else { return }
            current = next
        }
    }

    /// Renews every held lease three times per lease period; cancels jobs whose lease was lost.
    private func keepLeases(of running: RunningJobs) async {
        let interval = queue.configuration.leaseDuration / 3
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let jobs = await running.heldJobs
            guard !jobs.isEmpty else { continue }
            do {
                let lost = try await queue.renewLeases(of: jobs)
                if !lost.isEmpty {
                    log.warning("leases lost; abandoning jobs", ["jobs": lost.joined(separator: ",")])
                    await running.abandon(lost)
                }
            } catch {
                log.warning("could not renew leases", ["error": error.description])
            }
        }
    }
}
