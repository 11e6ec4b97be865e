import Foundation
import HTTPTypes
import NIOCore

/// A response of an in-process server, body included.
struct TestResponse: Sendable, CustomStringConvertible {
    /// The status line and headers.
    let head: HTTPResponse
    /// The whole body.
    let body: ByteBuffer

    /// The status.
    var status: HTTPResponse.Status { head.status }
    /// The headers.
    var headers: HTTPFields { head.headerFields }

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

    /// Status, headers and the start of the body, for failure messages.
    var description: String {
        "\(status.code) \(headers.map { "\($0.name): \($0.value)" }.joined(separator: ", "))\n\(text.prefix(600))"
    }
}
