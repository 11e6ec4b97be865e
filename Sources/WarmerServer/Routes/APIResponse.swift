import Foundation
import HTTPTypes
import Hummingbird

/// How the API's routes answer: JSON with sorted keys and slashes as they
/// are, and a newline, as the CLI prints the same values.
enum APIResponse {
    /// `value` as JSON with `status`.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return jsonData(try encoder.encode(value), status: status, headers: headers)
    }

    /// Encoded JSON `data` with `status`.
    static func jsonData(_ data: Data, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var body = data
        body.append(0x0A)
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// 204 No Content.
    static var noContent: Response { Response(status: .noContent) }
}
