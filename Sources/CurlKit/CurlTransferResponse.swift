import Foundation

/// What a transfer produced: a whole response, or (in a `CurlTransferFailure`)
/// the part of one that arrived before the transfer failed.
package struct CurlTransferResponse: Sendable {
    /// The final response's status code, after redirects.
    package let statusCode: Int
    /// The final response's headers, names lowercased.
    package let headers: [String: String]
    /// The URL that answered, after redirects.
    package let effectiveURL: String
    /// The body bytes received (a 2xx body only).
    package let body: Data
}
