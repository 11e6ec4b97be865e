import Foundation
import Hummingbird
import NIOCore

/// Reading what a request sends: its path parameters, its query and its
/// JSON body, each refused with a `Problem` naming what is wrong.
extension Request {
    /// The body, read as it streams in and refused past `limit` bytes (a
    /// `Content-Length` over it is refused before any byte is read).
    func bodyBytes(limit: Int) async throws -> [UInt8] {
        if let length = headers[.contentLength].flatMap(Int.init), length > limit { throw Problem.bodyTooLarge(limit: limit) }
        do {
            var buffer = try await body.collect(upTo: limit)
            return buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch is NIOTooManyBytesError {
            throw Problem.bodyTooLarge(limit: limit)
        }
    }

    /// The body decoded as JSON `T`.
    func decodeJSON<T: Decodable>(_ type: T.Type, limit: Int) async throws -> T {
        let bytes = try await bodyBytes(limit: limit)
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw Problem.badRequest("the body is not the JSON object this route takes (docs/openapi.yaml): \(Self.reason(error))")
        }
    }

    /// Query parameter `name` as a whole number in `range`; `fallback` when absent.
    func integerQuery(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
        guard let text = uri.queryParameters[name[...]] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw Problem.badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A short reason for a decoding error, without Foundation's debug dump.
    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "\"\(key.stringValue)\" is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        case DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty ? "not JSON" : "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is invalid"
        default: "not JSON"
        }
    }
}

extension ServerContext {
    /// Path parameter `name` (the router only matches when it is there).
    func pathParameter(_ name: String) throws -> String {
        guard let value = parameters.get(name) else { throw Problem.badRequest("\(name) is missing from the path") }
        return value
    }
}
