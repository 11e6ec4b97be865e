import CurlKit
import Foundation

/// A failed download, with what arrived before it failed: the status and
/// headers of the response (for `Retry-After`) and any body bytes (to resume
/// a download that was cut off).
public struct DataLoaderFailure: Error, Sendable {
    /// Why the download failed.
    public let error: DataLoaderError
    /// The final response as far as it arrived; `nil` when none began.
    public let partialResponse: DataLoader.Response?

    /// A failure, with the response as far as it arrived.
    public init(_ error: DataLoaderError, partialResponse: DataLoader.Response?) {
        self.error = error
        self.partialResponse = partialResponse
    }

    init(_ error: DataLoaderError, response: DataLoader.Response? = nil) {
        self.error = error
        self.partialResponse = response
    }

    /// A failed libcurl transfer, in the loader's terms.
    init(_ failure: CurlTransferFailure) {
        self.init(DataLoaderError(failure.error), response: failure.partialResponse.map(DataLoader.Response.init))
    }
}
