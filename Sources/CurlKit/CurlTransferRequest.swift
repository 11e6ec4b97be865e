import Foundation

/// Everything the curl thread needs to run one HTTP GET.
///
/// Built by `DataLoader` on the caller's side and handed to `CurlMultiLoop`;
/// immutable, so it crosses threads safely.
package struct CurlTransferRequest: Sendable {
    /// The URL to get.
    package let url: String
    /// Request header lines, `Name: value`.
    package let headers: [String]
    /// Timeouts and size limits.
    package let limits: Limits
    /// The `User-Agent` header.
    package let userAgent: String
    /// Whether the transfer may connect to an address (its bytes in network
    /// order, 4 or 16) for a URL whose host is the second argument: the SSRF
    /// guard, asked on the curl thread for every connection, redirects included.
    package let mayConnect: @Sendable (_ address: [UInt8], _ host: String?) -> Bool
    /// Called on the curl thread, throttled, with the response's status code
    /// (a resumed download counts from its offset only for a 206), the bytes
    /// received and the expected total if known.
    package let onProgress: @Sendable (_ statusCode: Int, _ received: Int64, _ expected: Int64?) -> Void
    /// Called exactly once on the curl thread.
    package let onCompletion: @Sendable (Result<CurlTransferResponse, CurlTransferFailure>) -> Void
    /// Set from any thread to abort the transfer; the loop notices it on its next turn.
    package let cancellation: CurlCancellation

    /// A request; see the properties.
    package init(
        url: String, headers: [String], limits: Limits, userAgent: String,
        mayConnect: @escaping @Sendable (_ address: [UInt8], _ host: String?) -> Bool,
        onProgress: @escaping @Sendable (_ statusCode: Int, _ received: Int64, _ expected: Int64?) -> Void,
        onCompletion: @escaping @Sendable (Result<CurlTransferResponse, CurlTransferFailure>) -> Void,
        cancellation: CurlCancellation
    ) {
        self.url = url
        self.headers = headers
        self.limits = limits
        self.userAgent = userAgent
        self.mayConnect = mayConnect
        self.onProgress = onProgress
        self.onCompletion = onCompletion
        self.cancellation = cancellation
    }

    /// Timeouts and size limits for one transfer.
    package struct Limits: Sendable {
        /// Time allowed to establish a connection.
        package var connectTimeoutMilliseconds: Int
        /// Time allowed for the whole transfer.
        package var totalTimeoutMilliseconds: Int
        /// Below this average speed for `lowSpeedTimeSeconds` the transfer times out (0: off).
        package var lowSpeedLimitBytesPerSecond: Int
        /// See `lowSpeedLimitBytesPerSecond`.
        package var lowSpeedTimeSeconds: Int
        /// Larger bodies fail with `bodyTooLarge`.
        package var maximumBodySize: Int64
        /// Redirects followed before `tooManyRedirects`.
        package var maximumRedirects: Int
        /// Minimum time between two progress reports.
        package var progressIntervalNanoseconds: UInt64

        /// Limits; see the properties.
        package init(
            connectTimeoutMilliseconds: Int, totalTimeoutMilliseconds: Int, lowSpeedLimitBytesPerSecond: Int,
            lowSpeedTimeSeconds: Int, maximumBodySize: Int64, maximumRedirects: Int, progressIntervalNanoseconds: UInt64
        ) {
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.totalTimeoutMilliseconds = totalTimeoutMilliseconds
            self.lowSpeedLimitBytesPerSecond = lowSpeedLimitBytesPerSecond
            self.lowSpeedTimeSeconds = lowSpeedTimeSeconds
            self.maximumBodySize = maximumBodySize
            self.maximumRedirects = maximumRedirects
            self.progressIntervalNanoseconds = progressIntervalNanoseconds
        }
    }
}
