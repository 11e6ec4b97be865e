import Foundation
import Logging
import PipelineEngine
import Scheduler

/// The long-running worker: claims jobs by priority, runs them, keeps their
/// leases alive, and stops gracefully.
///
/// An idle worker blocks on the queue's intake list (where producers' documents
/// and wake-up markers arrive) instead of polling. It follows the queue's
/// control stream, so a cancelled job stops within moments on whichever host
/// runs it. On a stop request it claims nothing more, lets running jobs
/// finish for up to `gracePeriod`, then cancels what is left and releases it
/// to the queue.
struct Worker: Sendable {
    /// Tunables of a worker process.
    struct Configuration: Sendable {
        var concurrency = 8
        var gracePeriod: Duration = .seconds(30)
        var idleWait: Duration = .seconds(1)
        var progressInterval: Duration = .milliseconds(250)
        /// The time limit of a job that has none of its own (`--job-timeout`).
        var jobTimeout: Duration = .seconds(120)
    }

    let queue: JobQueue
    let blockingClient: RedisClient
    /// Reserved for the control stream's XREAD BLOCK.
    let controlClient: RedisClient
    let pipeline: ImagePipeline
    let configuration: Configuration
    let workerID: String
    let stop: StopSignal
    private let logger = Logger(label: "warmer.worker")

    init(queue: JobQueue, blockingClient: RedisClient, controlClient: RedisClient, pipeline: ImagePipeline,
         configuration: Configuration, stop: StopSignal) {
        self.queue = queue
        self.blockingClient = blockingClient
        self.controlClient = controlClient
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
            workerID: workerID, progressInterval: configuration.progressInterval,
            processingLimits: pipeline.configuration.processingLimits, jobTimeout: configuration.jobTimeout, logger: logger
        )
        logger.info("started", metadata: [
            "worker": .string(workerID), "queue": .string(queue.keys.name), "redis": .string(queue.client.url.description),
            "concurrency": .stringConvertible(configuration.concurrency),
        ])
        let leaseKeeper = LeaseKeeper(
            queue: queue, leases: running.leases, logger: logger,
            onLost: { ids in Task { await running.abandon(ids) } },
            onCancelled: { ids in Task { _ = await running.cancel(ids) } }
        )
        leaseKeeper.start()
        let controlReader = Task { await followControlStream(running) }
        // The grace period starts when the stop is requested, whatever the
        // claim loop is doing (it may be waiting for a slot to free).
        let stopHandler = Task { await stopGracefully(running) }
        await claimUntilStopped(running: running, runner: runner)
        await running.waitUntilEmpty()
        stopHandler.cancel()
        await leaseKeeper.stop()
        controlReader.cancel()
        logger.info("stopped", metadata: ["worker": .string(workerID)])
    }

    /// On a stop request: wakes the claim loop, gives running jobs the grace
    /// period, then cancels what is left, which releases it to the queue.
    private func stopGracefully(_ running: RunningJobs) async {
        await stop.wait()
        let count = await running.count
        logger.info("stopping: no new jobs", metadata: ["running": .stringConvertible(count)])
        await running.wakeSlotWaiters()
        try? await Task.sleep(for: configuration.gracePeriod)
        guard !Task.isCancelled else { return }
        logger.warning("grace period over: releasing unfinished jobs")
        await running.abandon()
    }

    private func claimUntilStopped(running: RunningJobs, runner: JobRunner) async {
        var backoff = Backoff()
        while !stop.isRequested {
            await running.waitForFreeSlot()
            guard !stop.isRequested else { break }
            do {
                let jobs = try await queue.claim(upTo: await running.freeSlots, worker: workerID)
                backoff.reset()
                if jobs.isEmpty {
                    _ = try await queue.waitForWork(using: blockingClient, timeout: configuration.idleWait)
                    continue
                }
                for job in jobs {
                    await running.add(job)
                    Task { await runLane(from: job, running: running, runner: runner) }
                }
            } catch {
                logger.warning("queue unavailable, retrying", metadata: [
                    "error": .string(error.description), "in": .string("\(backoff.delay)"),
                ])
                await backoff.wait()
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

    /// Applies control messages to the jobs this worker runs: aborts
    /// cancelled jobs, moves re-prioritised ones. Reconnects with backoff.
    private func followControlStream(_ running: RunningJobs) async {
        let control = ControlStream(queue: queue)
        var position: String?
        var backoff = Backoff()
        while !Task.isCancelled {
            do {
                let start: String
                if let position { start = position } else { start = try await control.latestPosition() }
                let (messages, next) = try await control.read(after: start, timeout: configuration.idleWait, using: controlClient)
                position = next
                backoff.reset()
                for message in messages {
                    switch message {
                    case .cancel(let id):
                        if await !running.cancel([id]).isEmpty {
                            logger.info("job cancelled; aborting it", metadata: ["job": .string(id)])
                        }
                    case .priority(let id, let priority):
                        await running.setPriority(ImagePriority(priority), of: id)
                    }
                }
            } catch {
                guard !Task.isCancelled else { return }
                logger.warning("control stream unavailable, retrying", metadata: [
                    "error": .string(error.description), "in": .string("\(backoff.delay)"),
                ])
                await backoff.wait()
            }
        }
    }
}
