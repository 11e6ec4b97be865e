import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore

extension TestClientProtocol {
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
}

extension TestResponse {
    /// The body as UTF-8 text.
    var text: String { String(buffer: body) }

    /// The body as a JSON object (empty when it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
    }

    /// A problem's `code`.
    var code: String? { json["code"] as? String }

    /// Header `name`'s value.
    subscript(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }
}

extension TestResponse: @retroactive CustomStringConvertible {
    /// Status, headers and the start of the body, for failure messages.
    public var description: String {
        "\(status.code) \(headers.map { "\($0.name): \($0.value)" }.joined(separator: ", "))\n\(text.prefix(600))"
    }
}

/// A test that could not be set up as it should.
struct TestHarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
