import CurlKit
import Foundation
import WarmerSupport

/// Downloads data over HTTP(S) with libcurl.
///
/// All transfers of one loader share a single libcurl multi handle driven by
/// its own thread: connections are reused (keep-alive, HTTP/2 multiplexing),
/// waiting costs no Swift concurrency threads, and cancelling the calling
/// task aborts the transfer.
public final class DataLoader: Sendable {
    /// Limits and identity for every download of a loader.
    public struct Configuration: Sendable {
        /// Responses larger than this fail with `bodyTooLarge`, checked against
        /// `Content-Length` and while streaming. Default: 64 MiB.
        public var maximumBodySize: Int64 = 64 << 20
        /// Time allowed to establish a connection. Default: 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// Time allowed for the whole transfer. Default: 120 s.
        public var totalTimeout: Duration = .seconds(120)
        /// A transfer that averages under `lowSpeedLimit` bytes/s for
        /// `lowSpeedTime` fails with `timedOut` (curl's low-speed limit; the
        /// wait for the response counts). Catches an origin that accepts and
        /// never answers, sends headers then stalls, or trickles. 0 turns
        /// it off. Default: 1 KiB/s for 30 s.
        public var lowSpeedLimit: Int = 1024
        /// See `lowSpeedLimit`. Whole seconds, at least 1 (libcurl's unit).
        public var lowSpeedTime: Duration = .seconds(30)
        /// Redirects followed before failing. Default: 5.
        public var maximumRedirects: Int = 5
        /// Concurrent connections to one host. Default: 16.
        public var maximumConnectionsPerHost: Int = 16
        /// Concurrent connections in total. Default: 256.
        public var maximumTotalConnections: Int = 256
        /// Minimum time between two progress reports of one transfer. Default: 100 ms.
        public var progressInterval: Duration = .milliseconds(100)
        /// The `User-Agent` header.
        public var userAgent: String = "Warmer/\(WarmerVersion.current)"
        /// Extra request headers, e.g. `["Authorization": "Bearer …"]`.
        public var additionalHeaders: [String: String] = [:]
        /// Which addresses downloads may connect to. Default: public
        /// addresses only (the SSRF guard; see `AddressPolicy`).
        public var addressPolicy = AddressPolicy()

        /// Creates the default configuration.
        public init() {}
    }

    /// A successful download.
    public struct Response: Sendable {
        /// The response body (empty for a 304).
        public let data: Data
        /// The HTTP status code: 2xx, or 304 in answer to a conditional request.
        public let statusCode: Int
        /// Response headers, names lowercased.
        public let headers: [String: String]
        /// The URL that answered, after redirects.
        public let url: String

        /// A response as a loader received it.
        public init(data: Data, statusCode: Int, headers: [String: String], url: String) {
            self.data = data
            self.statusCode = statusCode
            self.headers = headers
            self.url = url
        }
    }

    /// The configuration the loader was created with.
    public let configuration: Configuration
    private let loop: CurlMultiLoop

    /// Creates a loader and starts its curl thread.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.loop = CurlMultiLoop(limits: .init(
            maximumConnectionsPerHost: configuration.maximumConnectionsPerHost,
            maximumTotalConnections: configuration.maximumTotalConnections
        ))
    }

    /// Downloads `url`.
    ///
    /// - Parameters:
    ///   - headers: request headers for this download only, added to the
    ///     configuration's (e.g. `If-None-Match`, `Range`).
    ///   - progress: called with (bytes received, expected total if
    ///     known), at most once per `progressInterval` and once at the end.
    /// - Returns: a 2xx response with its whole body, or a 304 (when
    ///   `headers` made the request conditional).
    /// - Throws: `DataLoaderError`; `.cancelled` when the calling task is cancelled.
    public func data(
        from url: URL, headers: [String: String] = [:],
        progress: @escaping @Sendable (Int64, Int64?) -> Void = { _, _ in }
    ) async throws(DataLoaderError) -> Response {
        do {
            return try await load(from: url, headers: headers) { _, completed, total in progress(completed, total) }.get()
        } catch {
            throw error.error
        }
    }

    /// Downloads `url` as `data(from:headers:progress:)` does, keeping on
    /// failure what arrived (headers, partial body). `progress` also gets
    /// the response's status code. (`DataLoading`'s requirement.)
    public func load(
        from url: URL, headers: [String: String] = [:],
        progress: @escaping @Sendable (_ statusCode: Int, _ completed: Int64, _ total: Int64?) -> Void = { _, _, _ in }
    ) async -> Result<Response, DataLoaderFailure> {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return .failure(DataLoaderFailure(url.scheme == nil ? .invalidURL(url.absoluteString) : .unsupportedScheme))
        }
        guard url.host?.isEmpty == false else { return .failure(DataLoaderFailure(.invalidURL(url.absoluteString))) }

        let cancellation = CurlCancellation()
        let request = makeRequest(url: url, headers: headers, cancellation: cancellation, progress: progress)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                loop.submit(request { result in
                    continuation.resume(returning: result.map(Response.init).mapError(DataLoaderFailure.init))
                })
            }
        } onCancel: {
            cancellation.cancel()
            loop.wake()
        }
    }

    /// The request headers every download sends, names as configured.
    public var requestHeaders: [String: String] {
        var headers = configuration.additionalHeaders
        headers["User-Agent"] = configuration.userAgent
        return headers
    }

    /// The transfer for `url`, waiting for its completion handler.
    private func makeRequest(
        url: URL, headers: [String: String], cancellation: CurlCancellation,
        progress: @escaping @Sendable (Int, Int64, Int64?) -> Void
    ) -> (_ completion: @escaping @Sendable (Result<CurlTransferResponse, CurlTransferFailure>) -> Void) -> CurlTransferRequest {
        let configuration = configuration
        let allHeaders = configuration.additionalHeaders.merging(headers) { _, perRequest in perRequest }
        return { completion in CurlTransferRequest(
            url: url.absoluteString,
            headers: allHeaders.map { "\($0.key): \($0.value)" },
            limits: .init(
                connectTimeoutMilliseconds: configuration.connectTimeout.milliseconds,
                totalTimeoutMilliseconds: configuration.totalTimeout.milliseconds,
                lowSpeedLimitBytesPerSecond: configuration.lowSpeedLimit,
                lowSpeedTimeSeconds: max(1, configuration.lowSpeedTime.milliseconds / 1000),
                maximumBodySize: configuration.maximumBodySize,
                maximumRedirects: configuration.maximumRedirects,
                progressIntervalNanoseconds: UInt64(configuration.progressInterval.milliseconds) * 1_000_000
            ),
            userAgent: configuration.userAgent,
            mayConnect: { [policy = configuration.addressPolicy] address, host in
                IPAddress(bytes: address).map { policy.permits($0, host: host) } ?? false
            },
            onProgress: progress,
            onCompletion: completion,
            cancellation: cancellation
        ) }
    }
}

extension DataLoader.Response {
    init(_ response: CurlTransferResponse) {
        self.init(data: response.body, statusCode: response.statusCode, headers: response.headers, url: response.effectiveURL)
    }
}
