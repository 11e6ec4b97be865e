import Foundation
import HTTPTypes
import Hummingbird
import Scheduler

/// An error answer of the API, as `application/problem+json` (RFC 9457).
///
/// Every error has a stable `code` (`batch_not_found`, `invalid_document`…)
/// whose `type` URI is `urn:warmer:problem:CODE`; docs/http-api.md lists
/// them. Clients branch on `type` (or `code`), never on `title` or `detail`.
struct Problem: Error, Sendable {
    /// The stable error code.
    let code: String
    /// The HTTP status.
    let status: HTTPResponse.Status
    /// What kind of error this is, the same for every instance of `code`.
    let title: String
    /// What went wrong this time, for a person.
    var detail: String?
    /// Extra response headers (`WWW-Authenticate`, `Retry-After`, `Allow`).
    var headers: HTTPFields = [:]

    /// `urn:warmer:problem:CODE`.
    var type: String { "urn:warmer:problem:" + code }

    init(_ code: String, _ status: HTTPResponse.Status, _ title: String, detail: String? = nil, headers: HTTPFields = [:]) {
        self.code = code
        self.status = status
        self.title = title
        self.detail = detail
        self.headers = headers
    }

    /// The response: the problem document, with `headers`. Error answers
    /// are never stored by a cache (`Cache-Control: no-store`).
    func response(instance: String?) -> Response {
        Response(status: status, headers: responseHeaders, body: .init(byteBuffer: document(instance: instance)))
    }

    /// `headers`, with the problem's content type and `Cache-Control: no-store`.
    var responseHeaders: HTTPFields {
        var fields = headers
        fields[.contentType] = "application/problem+json"
        fields[.cacheControl] = "no-store"
        return fields
    }

    /// The problem document (RFC 9457), one JSON line.
    func document(instance: String?) -> ByteBuffer {
        var object: [String: Any] = ["type": type, "title": title, "status": Int(status.code), "code": code]
        // A detail may quote a URL (`not_cached`, a warm failure): never its password.
        if let detail { object["detail"] = URLCredentials.masked(detail) }
        if let instance { object["instance"] = instance }
        var body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        body.append(0x0A)
        return ByteBuffer(bytes: body)
    }
}

extension Problem {
    /// 401: no token, or one the server does not know.
    static let unauthorized = Problem(
        "unauthorized", .unauthorized, "A valid bearer token is required",
        detail: "send Authorization: Bearer TOKEN with a read or admin token",
        headers: [.wwwAuthenticate: #"Bearer realm="warmer""#])
    /// 403: a read token on a route that changes something.
    static let forbidden = Problem(
        "forbidden", .forbidden, "This needs an admin token", detail: "the token given may only read")

    /// 404 for a path no route serves.
    static func notFound(_ path: String) -> Problem {
        Problem("not_found", .notFound, "No such resource", detail: "nothing is served at \(path)")
    }

    /// 400 for a malformed parameter or body.
    static func badRequest(_ detail: String) -> Problem {
        Problem("bad_request", .badRequest, "The request is malformed", detail: detail)
    }

    /// 413 for a body over `max-body`.
    static func bodyTooLarge(limit: Int) -> Problem {
        Problem("body_too_large", .contentTooLarge, "The request body is too large",
                detail: "bodies are limited to \(limit) bytes (max-body)")
    }

    /// 408: the request's headers and body did not arrive within `request-timeout`.
    static func requestTimeout(seconds: Int64) -> Problem {
        Problem("request_timeout", .requestTimeout, "The request took too long to arrive",
                detail: "a request's headers and body must arrive within \(seconds) s (request-timeout)")
    }

    /// 403: without tokens, a `Host` that is not a loopback name (DNS rebinding).
    static let forbiddenHost = Problem(
        "forbidden_host", .forbidden, "This server answers only to a loopback host name",
        detail: "without tokens, Host must be localhost, 127.0.0.1 or [::1] (with any port)")
    /// 403: without tokens, a change sent by a page of another origin.
    static let forbiddenOrigin = Problem(
        "forbidden_origin", .forbidden, "Changes from another origin are refused",
        detail: "without tokens, a change may come only from this server's own pages or a cors-origins entry")
    /// 415: without tokens, a change whose body is not declared as JSON.
    static let unsupportedMediaType = Problem(
        "unsupported_media_type", .unsupportedMediaType, "The body must be JSON",
        detail: "send Content-Type: application/json")
}
