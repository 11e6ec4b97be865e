import Foundation

/// What a transfer produced: a whole response, or (in a `DataLoaderFailure`)
/// the part of one that arrived before the transfer failed.
struct CurlTransferResponse: Sendable {
    /// The final response's status code, after redirects.
    let statusCode: Int
    /// The final response's headers, names lowercased.
    let headers: [String: String]
    /// The URL that answered, after redirects.
    let effectiveURL: String
    /// The body bytes received (a 2xx body only).
    let body: Data
}
