import Foundation
import PipelineEngine
import Scheduler

/// Runs one claimed job through the pipeline and reports it to the queue.
///
/// Maps the job to an `ImageRequest` (a `processed` job's spec gives its
/// thumbnail, processors and output encoding), runs it through the
/// prefetcher of its destination, publishes `started` and throttled
/// `progress` events as the `ImageTask` reports them, and finishes the job
/// with its outcome — which the queue's finish script counts in the batch and
/// publishes. A job that cannot run (bad URL, unknown destination) is
/// dead-lettered with its reason; an abandoned job is released for another
/// worker.
struct JobRunner: Sendable {
    let queue: JobQueue
    let events: EventStream
    let prefetchers: JobPrefetchers
    let running: RunningJobs
    let workerID: String
    /// Minimum time between two progress events of a job.
    let progressInterval: Duration
    let log: Log

    /// Runs `job` to its end and returns the next job claimed when finishing
    /// it, if `claimsNext` still says so then.
    func run(_ job: Job, claimsNext: @Sendable () -> Bool) async -> Job? {
        switch prepare(job) {
        case .end(let outcome):
            return await finish(job, outcome, claimsNext: claimsNext())
        case .run(let request, let destination):
            let task = prefetchers.prefetch(request, to: destination)
            await running.attach(task, to: job.id)
            guard let outcome = await follow(task, of: job) else {
                await release(job)
                return nil
            }
            return await finish(job, outcome, claimsNext: claimsNext())
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
                try ProcessingSpec(parsing: job.processing).apply(to: &request)
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
                lastPublished = .now
                await publish(JobEvent(.started, job: job, worker: workerID))
            case .progress(let completed, let total):
                guard ContinuousClock.now - lastPublished >= progressInterval else { continue }
                lastPublished = .now
                var fields = ["bytes": String(completed)]
                if let total { fields["total"] = String(total) }
                await publish(JobEvent(.progress, job: job, worker: workerID, extra: fields))
            case .retrying(let retry):
                await publish(JobEvent(.retrying, job: job, worker: workerID, extra: [
                    "download_attempt": String(retry.attempt), "error": retry.error.code,
                    "message": retry.error.description, "retry_in_ms": String(retry.delayMilliseconds),
                ]))
            case .completed(.success(let response)):
                return .completed(source: response.source.rawValue, bytes: response.byteCount)
            case .completed(.failure(let error)):
                return .failed(code: error.code, message: error.description)
            case .cancelled:
                return nil
            }
        }
        return nil
    }

    private func publish(_ event: JobEvent) async {
        do {
            try await events.publish(event)
        } catch {
            log.warning("could not publish event", ["job": event.jobID ?? "", "type": event.kind.rawValue, "error": error.description])
        }
    }

    /// Finishes the job, claiming the next one when asked, retrying while Redis
    /// is unreachable. An abandoned job is released instead.
    private func finish(_ job: Job, _ outcome: JobOutcome, claimsNext: Bool) async -> Job? {
        if await running.isAbandoned(job.id) {
            await release(job)
            return nil
        }
        for attempt in 1...5 {
            do {
                return try await queue.finish(job, outcome: outcome, worker: workerID, claimingNext: claimsNext ? 1 : 0).first
            } catch .leaseLost {
                log.warning("lease lost before finishing; another worker runs the job", ["job": job.id])
                return nil
            } catch {
                log.warning("could not finish job", ["job": job.id, "attempt": String(attempt), "error": error.description])
                try? await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
        log.error("gave up finishing job; its lease will expire and it will run again", ["job": job.id])
        return nil
    }

    private func release(_ job: Job) async {
        do {
            try await queue.release(job)
        } catch {
            log.warning("could not release job; its lease will expire", ["job": job.id, "error": error.description])
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
