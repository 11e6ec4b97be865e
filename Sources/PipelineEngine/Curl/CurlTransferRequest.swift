import Foundation
import Synchronization

/// Everything the curl thread needs to run one HTTP GET.
///
/// Built by `DataLoader` on the caller's side and handed to `CurlMultiLoop`;
/// immutable, so it crosses threads safely.
struct CurlTransferRequest: Sendable {
    let url: String
    let headers: [String]
    let limits: Limits
    let userAgent: String
    /// Which resolved addresses the transfer may connect to.
    let addressPolicy: AddressPolicy
    /// Called on the curl thread, throttled, with the response's status code
    /// (a resumed download counts from its offset only for a 206), the bytes
    /// received and the expected total if known.
    let onProgress: @Sendable (_ statusCode: Int, _ received: Int64, _ expected: Int64?) -> Void
    /// Called exactly once on the curl thread.
    let onCompletion: @Sendable (Result<CurlTransferResponse, DataLoaderFailure>) -> Void
    /// Set from any thread to abort the transfer; the loop notices it on its next turn.
    let cancellation: CurlCancellation

    /// Timeouts and size limits for one transfer.
    struct Limits: Sendable {
        var connectTimeoutMilliseconds: Int
        var totalTimeoutMilliseconds: Int
        var lowSpeedLimitBytesPerSecond: Int
        var lowSpeedTimeSeconds: Int
        var maximumBodySize: Int64
        var maximumRedirects: Int
        var progressIntervalNanoseconds: UInt64
    }
}
