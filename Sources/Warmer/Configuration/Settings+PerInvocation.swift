/// The flags that are not settings: what one invocation acts on (a batch,
/// jobs, processing steps, an output file), given on the command line only.
/// Positional arguments (URL files, ids, URLs) are not settings either.
extension Settings {
    /// The flags every processing-aware command takes (`ProcessingOptions`).
    static let processingFlags = ["thumbnail", "resize", "blur", "rounded", "circle", "format", "quality", "processing"]

    /// Each command's per-invocation flags, without their dashes.
    static let perInvocationFlags: [SettingCommand: [String]] = [
        .enqueue: ["priority", "destination", "batch", "group", "timeout", "fresh-for"] + processingFlags,
        .watch: ["batch", "json"],
        .status: ["failures", "limit", "throughput", "seconds", "job"],
        .batches: ["limit", "before", "json"],
        .workers: ["json"],
        .cancel: ["job"],
        .priority: ["batch", "job"],
        .group: ["weight", "limit", "no-limit", "reset", "json"],
        .deadList: ["limit", "json"],
        .deadRetry: ["all"],
        .deadPurge: ["all"],
        .warm: processingFlags,
        .cachePath: processingFlags,
        .cacheGet: processingFlags + ["output"],
    ]
}
