/// Why a transfer failed, in libcurl's terms; `DataLoader` maps it to its
/// own error vocabulary.
package enum CurlTransferError: Error, Sendable, Equatable {
    /// libcurl could not parse the URL, or lacks what it needs (`CURLE_URL_MALFORMAT`, `CURLE_NOT_BUILT_IN`).
    case invalidURL(String)
    /// The URL, or a redirect, uses a scheme other than `http` or `https`.
    case unsupportedScheme
    /// The final response's status is neither 2xx nor 304.
    case httpStatus(Int)
    /// The body exceeds `maximumBodySize` (`nil` when libcurl reported it without the limit).
    case bodyTooLarge(limit: Int64?)
    /// The connect, low-speed or total timeout expired.
    case timedOut
    /// More redirects than `maximumRedirects`.
    case tooManyRedirects
    /// The transfer was cancelled, or its loop shut down.
    case cancelled
    /// `mayConnect` refused the address (network-order bytes) DNS resolved to.
    case addressRefused(bytes: [UInt8])
    /// Any other libcurl failure, with its code and text.
    case transport(code: Int, message: String)
}
