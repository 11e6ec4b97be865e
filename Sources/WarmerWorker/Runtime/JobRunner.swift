import Foundation
import Logging
import PipelineEngine
import Scheduler
import WarmerInput
import WarmerSupport

/// Runs one claimed job through the pipeline and reports it to the queue.
///
/// Maps the job to an `ImageRequest` (a `processed` job's spec gives its
/// thumbnail, processors and output encoding), runs it through the
/// prefetcher of its destination, publishes throttled `progress` and
/// `retrying` events as the `ImageTask` reports them (the claim published
/// `started`), and finishes the job with its outcome — which the queue's
/// finish script counts in the job's batches and publishes, or schedules
/// for a retry when the failure is transient. A job that cannot run (bad
/// URL, unknown destination) is dead-lettered with its reason; an abandoned
/// job is released for another worker; a cancelled one is acknowledged as
/// cancelled. A job still running when its time limit passes (the job's own
/// `timeout`, else `jobTimeout`) is aborted and fails for good with
/// `deadline_exceeded`, which frees its slot.
///
/// Logs each download retry at info (the job's end is logged by the queue
/// as it finishes the job) and every event it publishes at debug.
struct JobRunner: Sendable {
    let source: any WorkSource
    /// Ends jobs in shared finish calls with the worker's other slots.
    let finisher: FinishBatcher
    let prefetchers: JobPrefetchers
    let running: RunningJobs
    let workerID: String
    /// Minimum time between two progress events of a job.
    let progressInterval: Duration
    /// What a job's processing spec may ask for (the pipeline's limits).
    let processingLimits: ProcessingLimits
    /// The time limit of a job that has none of its own (`--job-timeout`).
    let jobTimeout: Duration
    /// What the time limits run on.
    let clock: any TimerClock
    /// Checked when a job could not write to the cache: a folder that takes
    /// no writes stops the worker claiming, and its jobs go back to the queue.
    let cacheHealth: CacheFolderHealth
    let state: WorkerState
    let logger: Logger

    /// Runs `job` to its end and returns the next job claimed when finishing
    /// it, if `claimsNext` still says so then.
    func run(_ job: Job, claimsNext: @Sendable () -> Bool) async -> Job? {
        let started = ContinuousClock.now
        WorkerMetrics.claimed(job)
        switch prepare(job) {
        case .end(let outcome):
            return await finish(job, outcome, started: started, claimsNext: claimsNext())
        case .run(let request, let destination):
            let task = prefetchers.prefetch(request, to: destination)
            let timeLimit = TaskTimeLimit(job.timeout ?? jobTimeout, on: clock, cancelling: task)
            await running.attach(task, to: job.id)
            var outcome = await follow(task, of: job)
            timeLimit.stop()
            if await running.isCancelled(job.id) {
                return await finish(job, .cancelled, started: started, claimsNext: false)
            }
            if outcome == nil, timeLimit.hasExpired {
                // Not transient: another attempt would hold a slot as long again.
                outcome = .failed(code: TaskTimeLimit.errorCode, message: timeLimit.message, isTransient: false)
            }
            guard let outcome else {
                await release(job, started: started)
                return nil
            }
            if case .failed(code: "cache_write_failed", _, _) = outcome, await cacheFolderFailed() {
                await release(job, started: started)
                return nil
            }
            return await finish(job, outcome, started: started, claimsNext: claimsNext())
        }
    }

    private enum Preparation {
        case run(ImageRequest, JobDestination)
        case end(JobOutcome)
    }

    /// The pipeline request for `job`, or the outcome that ends it at once.
    private func prepare(_ job: Job) -> Preparation {
        guard URLList.isValid(job.url), let url = URL(string: job.url) else {
            let reason = job.url.isEmpty ? "The job has no URL" : "Not an http(s) URL: \(job.url)"
            return .end(.deadLettered(code: "invalid_url", message: reason))
        }
        guard let destination = JobDestination(rawValue: job.destination) else {
            return .end(.deadLettered(code: "invalid_destination", message: "Unknown destination '\(job.destination)'"))
        }
        let priority = JobPriority(rawValue: job.priority).map(ImagePriority.init) ?? .normal
        var request = ImageRequest(url: url, priority: priority)
        if destination == .processed {
            do {
                try ProcessingSpec(parsing: job.processing, limits: processingLimits).apply(to: &request)
            } catch {
                return .end(.deadLettered(code: "invalid_processing", message: error.description))
            }
        }
        return .run(request, destination)
    }

    /// Publishes the task's events until it ends; returns the job's outcome,
    /// or `nil` when the task was cancelled.
    private func follow(_ task: ImageTask, of job: Job) async -> JobOutcome? {
        var lastPublished = ContinuousClock.now
        for await event in task.events {
            switch event {
            case .started:
                lastPublished = .now // the claim published `started`
            case .progress(let completed, let total):
                guard ContinuousClock.now - lastPublished >= progressInterval else { continue }
                lastPublished = .now
                var fields = ["bytes": String(completed)]
                if let total { fields["total"] = String(total) }
                await publish(.progress, of: job, fields)
            case .retrying(let retry):
                logger.info("download failed; retrying", metadata: job.logMetadata.merging([
                    "code": .string(retry.error.code), "download_attempt": .stringConvertible(retry.attempt),
                    "retry_in_ms": .stringConvertible(retry.delayMilliseconds), "message": .string(retry.error.description),
                ]) { _, new in new })
                await publish(.retrying, of: job, [
                    "download_attempt": String(retry.attempt), "error": retry.error.code,
                    "message": retry.error.description, "retry_in_ms": String(retry.delayMilliseconds),
                ])
            case .completed(.success(let response)):
                return .completed(source: response.source.rawValue, bytes: response.byteCount)
            case .completed(.failure(.imageProcessingFailed(.invalidProcessing(let reason)))):
                // What this image would become breaks the limits: no attempt will do better.
                return .deadLettered(code: "invalid_processing", message: "Processing refused: \(reason)")
            case .completed(.failure(let error)):
                return .failed(code: error.code, message: error.description, isTransient: error.isTransient)
            case .cancelled:
                return nil
            }
        }
        return nil
    }

    private func publish(_ kind: JobEvent.Kind, of job: Job, _ fields: [String: String]) async {
        do {
            try await source.publish(kind, of: job, worker: workerID, extra: fields)
            logger.debug("event published", metadata: job.logMetadata.merging(
                fields.mapValues { .string($0) }.merging(["type": .string(kind.rawValue)]) { _, new in new }
            ) { _, new in new })
        } catch {
            logger.warning("could not publish event", metadata: job.logMetadata.merging([
                "type": .string(kind.rawValue), "error": .string(error.description),
            ]) { _, new in new })
        }
    }

    /// Finishes the job, claiming the next one when asked. An abandoned job
    /// is released instead.
    ///
    /// While Redis is out of reach (a restart, a partition) or answers "not
    /// now" (`SchedulerError.isTransient`), the end is sent again with backoff
    /// until Redis answers or the worker lets go of its jobs (the grace
    /// period of a stop ends, a second stop signal: `RunningJobs.wasLetGo`),
    /// however long the lease has been over: the result is in the cache, and
    /// Redis then either takes the end (no worker took the job over, so it
    /// does not run again) or refuses it as a lost lease (another worker
    /// holds the job; its new lease token fences this late end out). A lease
    /// the lease keeper learns is lost does not stop it: the end goes out all
    /// the same, and Redis refuses it. Any other error is tried again for as
    /// long as the lease lasts; after that another worker may run the job.
    private func finish(_ job: Job, _ outcome: JobOutcome, started: ContinuousClock.Instant, claimsNext: Bool) async -> Job? {
        if outcome != .cancelled, await running.isAbandoned(job.id) {
            await release(job, started: started)
            return nil
        }
        record(outcome, of: job, since: started)
        let deadline = clock.now + source.leaseDuration
        var backoff = Backoff(maximum: .seconds(2))
        var attempt = 1
        while true {
            do {
                let answer = try await finisher.finish(job, outcome: outcome, claimingNext: claimsNext)
                if answer.leaseWasLost {
                    logger.warning("lease lost before finishing; another worker runs the job",
                                   metadata: outcomeMetadata(job, outcome))
                } else if attempt > 1 {
                    logger.info("finished job once Redis answered again", metadata: outcomeMetadata(job, outcome).merging([
                        "tries": .stringConvertible(attempt),
                    ]) { _, new in new })
                }
                return answer.next
            } catch {
                // One warning per job and outage: a long one would repeat it every 2 s for each slot.
                logger.log(level: attempt == 1 ? .warning : .debug, "could not finish job",
                           metadata: outcomeMetadata(job, outcome).merging([
                               "try": .stringConvertible(attempt), "error": .string(error.description),
                           ]) { _, new in new })
                let triesAgain = error.isTransient || clock.now + backoff.delay < deadline
                guard triesAgain, !Task.isCancelled, await !running.wasLetGo(job.id) else { break }
                await backoff.wait(on: clock)
                attempt += 1
            }
        }
        logger.error("gave up finishing job; its lease will expire and it will run again",
                     metadata: outcomeMetadata(job, outcome))
        return nil
    }

    /// The job's fields and, for a failure, its error code.
    private func outcomeMetadata(_ job: Job, _ outcome: JobOutcome) -> Logger.Metadata {
        var metadata = job.logMetadata
        switch outcome {
        case .failed(let code, _, _), .deadLettered(let code, _): metadata["code"] = .string(code)
        case .completed, .cancelled: break
        }
        return metadata
    }

    private func release(_ job: Job, started: ContinuousClock.Instant) async {
        WorkerMetrics.finished(destination: job.destination, outcome: .released, code: "", after: .now - started)
        do {
            try await source.release(job)
        } catch {
            logger.warning("could not release job; its lease will expire", metadata: job.logMetadata.merging([
                "error": .string(error.description),
            ]) { _, new in new })
        }
    }
}

extension JobRunner {
    /// After a job failed to write to the disk cache: checks the folder.
    /// When it takes no writes, marks the worker (not ready, claims nothing,
    /// logs why) and abandons every job it holds — each goes back to the
    /// queue for a worker whose cache works, instead of into the dead
    /// letters — and returns true. Returns false when the folder works (the
    /// failure was this job's: it is retried as a transient failure).
    private func cacheFolderFailed() async -> Bool {
        guard let problem = cacheHealth.problem() else { return false }
        if state.setCacheProblem(problem) {
            let held = await running.count
            logger.error("cache folder takes no writes: not ready, claiming nothing, releasing held jobs",
                         metadata: ["reason": "\(problem)", "running": "\(held)"])
            await running.letGoOfAll()
        }
        return true
    }

    /// Counts a job's end in the metrics.
    private func record(_ outcome: JobOutcome, of job: Job, since started: ContinuousClock.Instant) {
        let kind: WorkerMetrics.Outcome, code: String
        switch outcome {
        case .completed(let source, _):
            (kind, code) = (.completed, "")
            WorkerMetrics.cacheResult(source: source)
        case .failed(let reason, _, let isTransient):
            let retries = isTransient && source.retryPolicy.delay(afterAttempt: job.attempt) != nil
            (kind, code) = (retries ? .retried : .failed, reason)
        case .deadLettered(let reason, _):
            (kind, code) = (.deadLettered, reason)
        case .cancelled:
            (kind, code) = (.cancelled, "")
        }
        WorkerMetrics.finished(destination: job.destination, outcome: kind, code: code, after: .now - started)
    }
}

extension ImagePipelineError {
    /// Whether another attempt later may succeed: a connection error,
    /// timeout, 408, 429 or 5xx that outlasted the pipeline's own retries,
    /// or a disk cache that could not be written.
    var isTransient: Bool {
        switch self {
        case .dataLoadingFailed(let error): RetryPolicy.isTransient(error)
        case .dataCacheWriteFailed: true
        default: false
        }
    }
}

extension ImagePriority {
    /// The pipeline priority of a job priority.
    init(_ priority: JobPriority) {
        switch priority {
        case .veryLow: self = .veryLow
        case .low: self = .low
        case .normal: self = .normal
        case .high: self = .high
        case .veryHigh: self = .veryHigh
        }
    }
}
