import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
@testable import WarmerServer

/// Sends requests straight to an in-process server's router, as the
/// `Application` hands them over once HTTP/1.1 is parsed: every middleware
/// and route runs, no socket does.
///
/// Why not HummingbirdTesting's `.router`, which does the same: that library
/// brings AsyncHTTPClient, and with it NIOSSL (BoringSSL, 406 C++ files) and
/// NIOHTTP2, into every build of the tests (docs/testing.md, "Server tests").
/// This is the part of it we use, over Hummingbird's public API.
struct RoutedClient: Sendable {
    private let responder: RouterResponder<ServerContext>
    private let logger: Logger

    init(router: Router<ServerContext>, logger: Logger) {
        responder = router.buildResponder()
        self.logger = logger
    }

    /// Sends `method path` with `token` as its bearer token (none when nil),
    /// the given headers (by name), and `body` as JSON (its `Content-Type`
    /// `application/json` unless `headers` names another).
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ path: String, token: String? = InProcessServer.adminToken,
        headers: [String: String] = [:], body: String? = nil
    ) async throws -> TestResponse {
        var fields = HTTPFields()
        if let token { fields[.authorization] = "Bearer \(token)" }
        if body != nil { fields[.contentType] = "application/json" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard let name = HTTPField.Name(name) else { throw TestHarnessError("not a header name: \(name)") }
            fields[name] = value
        }
        return try await executeRequest(uri: path, method: method, headers: fields, body: body.map { ByteBuffer(string: $0) })
    }

    /// Sends one request as it is: `uri` is the request target (path and query).
    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        // A channel that is never connected: no remote address, and its close
        // future (the end of an event stream) completes only when closed.
        let context = ServerContext(source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(), logger: logger))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            // What Hummingbird's HTTP layer answers to an error no middleware turned into a response.
            response = Response(status: .internalServerError)
        }
        let collected = CollectedBody()
        try await response.body.write(BodyCollector(into: collected))
        return TestResponse(head: response.head, body: collected.buffer)
    }
}

/// The bytes of a response body, as `BodyCollector` writes them.
private final class CollectedBody {
    var buffer = ByteBuffer()
}

/// Writes a response body into a `CollectedBody`.
private struct BodyCollector: ResponseBodyWriter {
    let collected: CollectedBody

    init(into collected: CollectedBody) {
        self.collected = collected
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        collected.buffer.writeBuffer(&buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
