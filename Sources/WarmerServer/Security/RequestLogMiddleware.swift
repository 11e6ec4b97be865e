import Hummingbird
import HummingbirdCore
import Logging
import Scheduler

/// The debug line each request gets (`Request`, with `hb.request.method`
/// and `hb.request.path`), with no URL password in it (issue 23 V2).
///
/// `GET /v1/cache?url=…` is called with its URL percent-encoded
/// (`http%3A%2F%2Fuser%3Apw%40host…`), which the masker, looking for
/// `://`, would not recognise: so the logged path is the path, then each
/// query parameter decoded and masked (`?url=http://user:***@host/a.jpg`).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if context.logger.logLevel <= .debug {
            context.logger.debug("Request", metadata: [
                "hb.request.path": .string(Self.maskedTarget(request.uri)),
                "hb.request.method": .string(request.method.rawValue),
            ])
        }
        return try await next(request, context)
    }

    /// `uri`'s path and its query, each parameter decoded and its URL passwords masked.
    static func maskedTarget(_ uri: URI) -> String {
        let path = URLCredentials.masked(uri.path)
        guard let query = uri.query, !query.isEmpty else { return path }
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { URLCredentials.masked(decoded($0)) }
        return path + "?" + parameters.joined(separator: "&")
    }

    /// `text` with every valid `%XX` escape decoded (and `+` as a space);
    /// an invalid escape stays as it is, so that a malformed query cannot
    /// keep an encoded URL from being masked.
    static func decoded(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index] == UInt8(ascii: "+") ? UInt8(ascii: " ") : bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
