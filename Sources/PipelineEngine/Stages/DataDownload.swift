import Foundation
import Logging
import WarmerSupport

/// One download of the data level, with everything around the transfer:
/// the rate limiter, a slot of the data-loading queue, revalidation of a
/// stale entry, resuming a cut-off download, retries, and storing the result.
///
/// Each attempt takes a token from the rate limiter (in priority order) and a
/// permit of the limits shared with other processes (if any), then
/// a slot of the data-loading queue, so waiting for either holds no connection.
/// A transient failure is retried after a backoff, or the origin's
/// `Retry-After`; bytes that arrived are kept (in the disk cache's folder, so
/// another worker can resume them) and the next attempt asks only for the rest.
struct DataDownload {
    let pipeline: ImagePipeline
    let task: PipelineTask<LoadedData>
    let request: ImageRequest
    /// The stale entry to revalidate, if any.
    private var cached: HTTPCacheMetadata?
    /// The bytes of an earlier, interrupted attempt.
    private var partial: PartialDownload?
    /// Whether an answer made the download start over (at most once, uncounted).
    private var hasStartedOver = false

    private var configuration: ImagePipeline.Configuration { pipeline.configuration }
    private var key: String { request.dataCacheKey }
    private var host: String { request.url.host?.lowercased() ?? "" }

    init(pipeline: ImagePipeline, task: PipelineTask<LoadedData>, request: ImageRequest, revalidating cached: HTTPCacheMetadata?) {
        self.pipeline = pipeline
        self.task = task
        self.request = request
        self.cached = cached
    }

    /// What an answer leads to.
    private enum Step {
        /// The download ended.
        case done(Result<LoadedData, ImagePipelineError>)
        /// A transient failure: try again (the wait is over).
        case retry
        /// The answer did not fit the question (a 206 for other bytes, a 304
        /// with nothing to refresh, a 416): ask again for the whole body.
        case startOver(status: Int)
    }

    /// Downloads until success, a permanent failure, the last attempt or cancellation.
    mutating func run() async -> Result<LoadedData, ImagePipelineError> {
        partial = storedPartial()
        var attempt = 1
        while true {
            let task = task
            do {
                let waitStart = ContinuousClock.now
                try await pipeline.rateLimiter.acquire(host: host, priority: { task.priority })
                try await configuration.downloadPermits?.permit(host: host, priority: { task.priority })
                PipelineMetrics.rateLimiterWaited(.now - waitStart)
            } catch {
                return .failure(.cancelled)
            }
            guard let finish = await pipeline.queues.dataLoading.slot(priority: task.priority, register: task.setOperation) else {
                return .failure(.cancelled)
            }
            let requestTime = Date()
            let transferStart = ContinuousClock.now
            pipeline.counters.countDownload()
            let offset = Int64(partial?.data.count ?? 0), total = partial?.totalLength
            let outcome = await configuration.dataLoader.load(from: request.url, headers: requestHeaders) { status, completed, expected in
                // Only a 206 continues the bytes held; a 200 starts from zero.
                if status == 206 {
                    task.send(progress: offset + completed, total: total ?? expected.map { offset + $0 })
                } else {
                    task.send(progress: completed, total: expected)
                }
            }
            finish()
            PipelineMetrics.record(.download, since: transferStart)

            let step: Step
            switch outcome {
            case .success(let response):
                PipelineMetrics.downloaded(bytes: response.data.count)
                pipeline.rateLimiter.recordSuccess(host: host)
                step = await complete(with: response, requestTime: requestTime, attempts: attempt)
            case .failure(let failure):
                step = await recover(from: failure, attempt: attempt)
            }
            switch step {
            case .done(let result):
                return result
            case .retry:
                attempt += 1
            case .startOver(let status):
                // Once, uncounted; a second misfit answer is the origin's fault.
                guard !hasStartedOver else { return .failure(.dataLoadingFailed(.httpStatus(status))) }
                hasStartedOver = true
                discardPartial()
                cached = nil
            }
        }
    }

    /// The headers of the next attempt: resume the partial bytes, else
    /// revalidate the stale entry, else none.
    private var requestHeaders: [String: String] {
        if let partial { return partial.requestHeaders }
        return cached?.conditionalRequestHeaders ?? [:]
    }
}

// MARK: Answers

extension DataDownload {
    /// Handles a 2xx or 304.
    private mutating func complete(with response: DataLoader.Response, requestTime: Date, attempts: Int) async -> Step {
        let responseTime = Date()
        switch response.statusCode {
        case 304:
            return revalidated(by: response, requestTime: requestTime, responseTime: responseTime, attempts: attempts)
        case 206:
            guard let body = partial?.completed(by: response) else { return .startOver(status: 206) }
            // Each response kept under the limit; together they must too.
            let limit = configuration.dataLoader.maximumBodySize
            guard Int64(body.count) <= limit else {
                discardPartial()
                return .done(.failure(.dataLoadingFailed(.bodyTooLarge(limit: limit))))
            }
            // Describe the whole body, as if it had come in one 200.
            var headers = response.headers
            headers["content-length"] = String(body.count)
            headers["content-range"] = nil
            return .done(await store(body, status: 200, headers: headers, requestTime: requestTime,
                                     responseTime: responseTime, attempts: attempts))
        default:
            return .done(await store(response.data, status: response.statusCode, headers: response.headers,
                                     requestTime: requestTime, responseTime: responseTime, attempts: attempts))
        }
    }

    /// A 304: the stale entry is current. Its metadata is refreshed; the
    /// data is not read (consumers that need it read it from the cache).
    private func revalidated(by response: DataLoader.Response, requestTime: Date, responseTime: Date, attempts: Int) -> Step {
        guard let cached, let dataCache = configuration.dataCache,
              let refreshed = cached.refreshed(with: response.headers, requestTime: requestTime, responseTime: responseTime)
        else { return .startOver(status: 304) }
        if request.writesDiskCache { dataCache.storeMetadata(refreshed.encoded(), for: key) }
        let cacheURL = dataCache.containsData(for: key) ? dataCache.url(for: key) : nil
        return .done(.success(LoadedData(body: nil, cacheURL: cacheURL, source: .revalidated,
                                         metadata: refreshed, downloadAttempts: attempts)))
    }

    /// Refuses a body that is not an image (when the configuration asks),
    /// else hands it to `StoreStage`, which keeps what the mode and the policy say.
    private func store(
        _ body: Data, status: Int, headers: [String: String], requestTime: Date, responseTime: Date, attempts: Int
    ) async -> Result<LoadedData, ImagePipelineError> {
        if configuration.requiresImageData, ImageFormat(sniffing: body) == nil {
            if partial != nil { configuration.dataCache?.removePartialData(for: key) }
            return .failure(.notAnImage(Self.beginning(of: body)))
        }
        return await StoreStage(pipeline: pipeline).storeOriginal(
            body, status: status, headers: headers, requestTime: requestTime, responseTime: responseTime,
            request: request, requests: task.requests, attempts: attempts, wasResumed: partial != nil)
    }
}

extension DataDownload {
    // MARK: Failures

    /// Keeps what arrived, then decides: fail now, or wait and retry.
    private mutating func recover(from failure: DataLoaderFailure, attempt: Int) async -> Step {
        let response = failure.partialResponse
        if failure.error == .httpStatus(416), partial != nil {
            return .startOver(status: 416)  // the partial bytes no longer fit the origin's body
        }
        if failure.error == .cancelled || RetryPolicy.isTransient(failure.error) {
            await keepPartial(of: response)
        }
        guard failure.error != .cancelled else { return .done(.failure(.cancelled)) }

        let retryAfter = RetryPolicy.retryAfter(response?.headers["retry-after"])
        if case .httpStatus(let status) = failure.error, status == 429 || status == 503 {
            // One URL's far-off Retry-After must not hold its whole host for
            // long: the hold is capped as the in-process wait is.
            pipeline.rateLimiter.slowDown(host: host, retryAfter: retryAfter.map { min($0, configuration.retryPolicy.maximumRetryAfter) })
            configuration.logger.debug("host asked to slow down", metadata: [
                "host": .string(host), "code": .string(failure.error.code),
            ])
        }
        guard let delay = configuration.retryPolicy.delay(
            afterAttempt: attempt, error: failure.error, retryAfter: retryAfter, random: .random(in: 0..<1)
        ) else {
            configuration.logger.debug("download failed", metadata: [
                "url": .string(request.url.absoluteString), "code": .string(failure.error.code),
                "attempt": .stringConvertible(attempt), "error": .string(failure.error.description),
            ])
            return .done(.failure(.dataLoadingFailed(failure.error)))
        }
        configuration.logger.debug("download failed; retrying", metadata: [
            "url": .string(request.url.absoluteString), "code": .string(failure.error.code),
            "attempt": .stringConvertible(attempt), "retry_in_ms": .stringConvertible(delay.milliseconds),
            "error": .string(failure.error.description),
        ])
        task.send(retry: DownloadRetry(attempt: attempt, error: failure.error, delay: delay))
        PipelineMetrics.downloadRetried()
        do {
            try await Task.sleep(for: delay)
        } catch {
            return .done(.failure(.cancelled))
        }
        return .retry
    }

    /// The partial download stored by an earlier attempt (maybe another
    /// worker's), if resuming it is allowed.
    private func storedPartial() -> PartialDownload? {
        guard request.readsDiskCache, let dataCache = configuration.dataCache else { return nil }
        return dataCache.partialData(for: key).flatMap { PartialDownload.decode($0, url: key) }
    }

    /// Keeps the bytes of a failed attempt when they can be resumed: in
    /// memory for the next attempt, and in the disk cache for other workers.
    private mutating func keepPartial(of response: DataLoader.Response?) async {
        guard let response, let kept = PartialDownload(failed: response, resuming: partial, url: key) else {
            if response?.statusCode == 200 { discardPartial() }  // a full answer replaced the old bytes
            return
        }
        partial = kept
        if let dataCache = configuration.dataCache, request.writesDiskCache {
            try? await dataCache.writePartialData(kept.encoded(), for: key)
        }
    }

    /// Forgets the partial download, here and in the disk cache.
    private mutating func discardPartial() {
        guard partial != nil else { return }
        partial = nil
        configuration.dataCache?.removePartialData(for: key)
    }
}

extension DataDownload {
    /// How `body` begins, for an error message: its first 24 bytes, quoted,
    /// with anything unprintable escaped (`\u{0}`), or "empty".
    static func beginning(of body: Data) -> String {
        guard !body.isEmpty else { return "empty" }
        let text = body.prefix(24).map { byte -> String in
            (0x20..<0x7F).contains(byte) && byte != UInt8(ascii: "\"") ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
        }.joined()
        return "\"\(text)\"" + (body.count > 24 ? "…" : "")
    }
}
