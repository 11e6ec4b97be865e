import Foundation
import PipelineEngine
import Synchronization
import WarmerInput
import WarmerWorker

/// Loads a missed image into the cache folder for `GET /v1/cache?warm=1`,
/// as `warmer warm` does: the original data (`prefetchData`) or, with a
/// processing spec, the encoded variant (`prefetchImage`), through a
/// pipeline made from the same settings as a worker's (SSRF address rules,
/// body, pixel and processing limits, retries, `job-timeout`).
///
/// Identical requests in flight share one load: the first request of a
/// cache key starts a task, later ones wait for the same task (the pipeline
/// would share the download too, but this also shares the warm slot). The
/// task runs to its end even if every caller goes away, so the work is not
/// lost. Distinct loads take a slot of `WarmSlots` each (`warm-concurrency`);
/// past its waiting list a load is refused with 503 `warm_busy`.
final class CacheWarmer: Sendable {
    private let pipeline: ImagePipeline
    private let timeLimit: Duration
    private let slots: WarmSlots
    private let inFlight = Mutex<[String: Task<Problem?, Never>]>([:])

    init(pipeline: ImagePipeline, timeLimit: Duration, concurrency: Int, maxWaiting: Int) {
        self.pipeline = pipeline
        self.timeLimit = timeLimit
        slots = WarmSlots(slots: concurrency, maxWaiting: maxWaiting)
    }

    /// Loads `query`'s image into the cache, or joins the load in flight.
    /// - Throws: a `Problem` with the pipeline's error code when it fails.
    func warm(_ query: CacheQuery) async throws {
        let key = query.key
        let task = inFlight.withLock { tasks -> Task<Problem?, Never> in
            if let task = tasks[key] { return task }
            let task = Task { [self] in
                let problem = await load(query)
                // (Runs after the insertion below: this lock is held until then.)
                inFlight.withLock { $0[key] = nil }
                return problem
            }
            tasks[key] = task
            return task
        }
        if let problem = await task.value { throw problem }
    }

    /// One load, in a warm slot, within `timeLimit`.
    private func load(_ query: CacheQuery) async -> Problem? {
        guard await slots.acquire() else { return .warmBusy }
        defer { slots.release() }
        let request = query.imageRequest
        let task = query.processing == nil ? pipeline.prefetchData(for: request) : pipeline.prefetchImage(for: request)
        let limit = TaskTimeLimit(timeLimit, cancelling: task)
        let result = await task.result
        limit.stop()
        switch result {
        case .success:
            return nil
        case .failure(let error) where error == .cancelled && limit.hasExpired:
            return .warmFailed(code: TaskTimeLimit.errorCode, detail: limit.message)
        case .failure(let error):
            return .warmFailed(code: error.code, detail: error.description)
        }
    }
}
