import WarmerSupport

/// A download attempt that failed with a transient error and will be tried
/// again: what `ImageTask` reports as `.retrying`.
public struct DownloadRetry: Sendable, Equatable {
    /// The attempt that failed, from 1.
    public let attempt: Int
    /// Why it failed.
    public let error: DataLoaderError
    /// How long the pipeline waits before the next attempt (backoff with
    /// jitter, or the origin's `Retry-After`).
    public let delay: Duration
}

extension DownloadRetry {
    /// `delay` in whole milliseconds.
    public var delayMilliseconds: Int { delay.milliseconds }
}
