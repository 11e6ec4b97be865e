/// A failed transfer, with what arrived before it failed: the status and
/// headers (for `Retry-After`) and any body bytes (to resume a cut download).
package struct CurlTransferFailure: Error, Sendable {
    /// Why the transfer failed.
    package let error: CurlTransferError
    /// The final response as far as it arrived; `nil` when none began.
    package let partialResponse: CurlTransferResponse?

    /// A failure for `error`, keeping `partialResponse`.
    package init(_ error: CurlTransferError, partialResponse: CurlTransferResponse? = nil) {
        self.error = error
        self.partialResponse = partialResponse
    }
}
