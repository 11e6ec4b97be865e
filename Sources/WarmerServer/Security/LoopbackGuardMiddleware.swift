import Foundation
import HTTPTypes
import Hummingbird

/// Without tokens the API is open to this machine only (`ListenAddress`),
/// which a browser on this machine must not turn into an opening for any
/// web site (docs/http-api.md, "Security", issue 23 V4):
///
/// - **DNS rebinding.** A request whose `Host` is not a loopback name
///   (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`, with any port) is
///   refused `403 forbidden_host`: a site whose name was re-pointed at
///   127.0.0.1 still sends its own name.
/// - **Cross-site changes.** A change (any method but GET, HEAD, OPTIONS)
///   carrying an `Origin` other than the server's own (`http://` + its
///   `Host`) or a configured `cors-origins` entry is refused
///   `403 forbidden_origin`, before anything is read or changed.
/// - **Simple requests.** A change with a body must say
///   `Content-Type: application/json`, which a page cannot send elsewhere
///   without a CORS preflight; anything else is refused `415`.
///
/// With tokens configured it does nothing: a page cannot present a bearer
/// token it does not have.
struct LoopbackGuardMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    /// Origins allowed besides the server's own (`cors-origins`).
    let allowedOrigins: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let authority = request.head.authority
        if let authority, !Self.isLoopback(authority: authority) { throw Problem.forbiddenHost }
        guard ![.get, .head, .options].contains(request.method) else { return try await next(request, context) }
        if let origin = request.headers[.origin], !allowedOrigins.contains(origin),
           authority.map({ origin != "http://" + $0 && origin != "https://" + $0 }) ?? true {
            throw Problem.forbiddenOrigin
        }
        if Self.hasBody(request.headers), !Self.isJSON(request.headers[.contentType]) { throw Problem.unsupportedMediaType }
        return try await next(request, context)
    }

    /// Whether `authority` (`host[:port]`) names this machine only.
    static func isLoopback(authority: String) -> Bool {
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            host = host[...close]
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        let name = host.lowercased()
        return ListenAddress.isLoopback(name) || name.hasSuffix(".localhost")
    }

    /// Whether the request says it sends a body.
    static func hasBody(_ headers: HTTPFields) -> Bool {
        if headers[.transferEncoding] != nil { return true }
        return headers[.contentLength].flatMap(Int.init).map { $0 > 0 } ?? false
    }

    /// Whether `contentType` is `application/json` (parameters allowed).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return mediaType.lowercased() == "application/json"
    }
}
