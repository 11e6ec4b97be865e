import Foundation

/// Downloads the original data of an image: the pipeline's seam to the
/// network, after Nuke's `DataLoading`.
///
/// `DataLoader` (libcurl) is the default. The pipeline drives everything
/// around a transfer itself — rate limits, its data-loading queue, retries,
/// resuming, revalidation, storing — so a loader only moves bytes: one call,
/// one request. Tests give the pipeline an in-memory loader that can hold a
/// load until released (Tests/PipelineEngineFakes), so the task graph is
/// tested without a network.
public protocol DataLoading: Sendable {
    /// The request headers every download sends (names as configured): the
    /// HTTP cache matches a stored response's `Vary` against them.
    var requestHeaders: [String: String] { get }

    /// The largest body accepted. A download resumed in parts is checked
    /// against it as a whole.
    var maximumBodySize: Int64 { get }

    /// Downloads `url`, keeping on failure what arrived (the status and
    /// headers for `Retry-After`, body bytes to resume from).
    ///
    /// - Parameters:
    ///   - headers: request headers for this download only (`If-None-Match`, `Range`…).
    ///   - progress: (status code, bytes received, expected total if known),
    ///     now and then and once at the end.
    /// - Returns: a 2xx response with its whole body, or a 304 when `headers`
    ///   made the request conditional; a failure with `.cancelled` when the
    ///   calling task is cancelled.
    func load(
        from url: URL, headers: [String: String],
        progress: @escaping @Sendable (_ statusCode: Int, _ completed: Int64, _ total: Int64?) -> Void
    ) async -> Result<DataLoader.Response, DataLoaderFailure>
}
