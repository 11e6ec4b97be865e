/// A limit on download starts shared beyond this process, such as the rate
/// limits every worker of a queue shares in Redis. The pipeline asks it
/// after its own `RateLimiter` (the local cap), before each attempt.
public protocol DownloadPermits: Sendable {
    /// Returns when a download from `host` may start. `priority` is the
    /// request's current priority, asked again whenever the permit is asked
    /// for again (a priority change in flight counts).
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled
    ///   while waiting.
    func permit(host: String, priority: @escaping @Sendable () -> ImagePriority) async throws(CancellationError)
}
