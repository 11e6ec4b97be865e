/// Why a download failed.
public enum DataLoaderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL could not be parsed or has no host.
    case invalidURL(String)
    /// The URL (or a redirect) uses a scheme other than `http` or `https`.
    case unsupportedScheme
    /// The origin answered with a status other than 2xx.
    case httpStatus(Int)
    /// The body is larger than the configured maximum (`nil` when libcurl reported it without the limit).
    case bodyTooLarge(limit: Int64?)
    /// The connect, low-speed or total timeout expired.
    case timedOut
    /// More redirects than the configured maximum.
    case tooManyRedirects
    /// The download was cancelled.
    case cancelled
    /// The address the URL (or a redirect) resolved to is not allowed by the
    /// loader's `AddressPolicy` (loopback, private, link-local…). Permanent.
    case addressRefused(String)
    /// A network-level failure reported by libcurl (DNS, connection refused, reset...).
    case transport(code: Int, message: String)

    /// A short, stable identifier for machines (events, metrics).
    public var code: String {
        switch self {
        case .invalidURL: "invalid_url"
        case .unsupportedScheme: "unsupported_scheme"
        case .httpStatus(let status): "http_\(status)"
        case .bodyTooLarge: "body_too_large"
        case .timedOut: "timed_out"
        case .tooManyRedirects: "too_many_redirects"
        case .cancelled: "cancelled"
        case .addressRefused: "address_refused"
        case .transport: "transport"
        }
    }

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .invalidURL(let url): "Invalid URL: \(url)"
        case .unsupportedScheme: "Only http and https URLs are allowed"
        case .httpStatus(let status): "The origin answered HTTP \(status)"
        case .bodyTooLarge(let limit?): "The response body exceeds the maximum of \(limit) bytes"
        case .bodyTooLarge(nil): "The response body exceeds the maximum size"
        case .timedOut: "The download timed out"
        case .tooManyRedirects: "Too many redirects"
        case .cancelled: "The download was cancelled"
        case .addressRefused(let address): "Refused to connect to \(address): not a public address (allow it with --allow-host, --allow-network or --allow-private-networks)"
        case .transport(let code, let message): "\(message) (curl error \(code))"
        }
    }
}
