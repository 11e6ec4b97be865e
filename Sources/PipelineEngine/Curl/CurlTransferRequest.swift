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
    /// Called on the curl thread with (bytes received, expected total if known), throttled.
    let onProgress: @Sendable (Int64, Int64?) -> Void
    /// Called exactly once on the curl thread.
    let onCompletion: @Sendable (Result<CurlTransferResponse, DataLoaderError>) -> Void
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

/// What a finished transfer produced.
struct CurlTransferResponse: Sendable {
    let statusCode: Int
    let headers: [String: String]
    let effectiveURL: String
    let body: Data
}

/// A thread-safe cancel flag shared by the caller and the curl thread.
final class CurlCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    var isCancelled: Bool { flag.load(ordering: .acquiring) }

    func cancel() { flag.store(true, ordering: .releasing) }
}
