import Metrics

/// What the pipeline reports to swift-metrics for an operator: how long each
/// stage took, the bytes it moved, download retries and rate-limiter waits.
///
/// The names follow Prometheus conventions (docs/observability.md, "Metrics").
/// Nothing is exported unless the process bootstraps a metrics backend
/// (`warmer worker --http-port`); until then every handle is swift-metrics'
/// no-op and costs a call. The handles are created on first use, so a
/// backend bootstrapped at start receives all of them.
///
/// `PipelineCounters` stays the exact per-pipeline count that tests assert
/// on; these are process-wide figures over time.
enum PipelineMetrics {
    /// One stage of loading an image, the `stage` label of
    /// `warmer_pipeline_stage_seconds`.
    enum Stage: String, CaseIterable, Sendable {
        /// One HTTP transfer, from its slot to its last byte (each attempt).
        case download
        /// Reading an original or an encoded copy from the disk cache before decoding.
        case diskRead = "disk_read"
        /// Decoding (shrink-on-load included) into pixels.
        case decode
        /// One processing step.
        case process
        /// Encoding the processed pixels.
        case encode
        /// Writing a file into the disk cache (original data or encoded variant).
        case store
    }

    private static let stageTimers: [Stage: Timer] = Dictionary(uniqueKeysWithValues: Stage.allCases.map {
        ($0, Timer(label: "warmer_pipeline_stage_seconds", dimensions: [("stage", $0.rawValue)], preferredDisplayUnit: .seconds))
    })
    private static let downloadedBytes = Counter(label: "warmer_downloaded_bytes_total")
    private static let storedBytes = Counter(label: "warmer_stored_bytes_total")
    private static let downloadRetries = Counter(label: "warmer_download_retries_total")
    private static let rateLimiterWaits = Counter(label: "warmer_rate_limiter_waits_total")
    private static let rateLimiterWaitTime = Timer(label: "warmer_rate_limiter_wait_seconds", preferredDisplayUnit: .seconds)

    /// Records that `stage` ran from `start` until now.
    static func record(_ stage: Stage, since start: ContinuousClock.Instant) {
        stageTimers[stage]?.record(duration: .now - start)
    }

    /// Runs `body` and records its duration as `stage`.
    static func measure<Value, Failure: Error>(
        _ stage: Stage, _ body: () throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let start = ContinuousClock.now
        defer { record(stage, since: start) }
        return try body()
    }

    /// Counts bytes that arrived from an origin.
    static func downloaded(bytes: Int) {
        if bytes > 0 { downloadedBytes.increment(by: bytes) }
    }

    /// Counts bytes written into the disk cache.
    static func stored(bytes: Int) {
        if bytes > 0 { storedBytes.increment(by: bytes) }
    }

    /// Counts a download attempt that will be retried.
    static func downloadRetried() {
        downloadRetries.increment()
    }

    /// Records a rate-limiter wait that lasted `duration` (a token granted
    /// at once is not a wait).
    static func rateLimiterWaited(_ duration: Duration) {
        guard duration >= .milliseconds(1) else { return }
        rateLimiterWaits.increment()
        rateLimiterWaitTime.record(duration: duration)
    }
}
