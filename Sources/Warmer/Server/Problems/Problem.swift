import Foundation
import HTTPTypes
import Hummingbird

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

    /// The response: the problem document, with `headers`.
    func response(instance: String?) -> Response {
        var object: [String: Any] = ["type": type, "title": title, "status": Int(status.code), "code": code]
        if let detail { object["detail"] = detail }
        if let instance { object["instance"] = instance }
        var body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        body.append(0x0A)
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
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
}
