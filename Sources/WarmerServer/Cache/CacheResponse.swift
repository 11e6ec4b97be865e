import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WarmerSupport

/// The answer `GET /v1/cache` (and `HEAD`) gives for a cache entry: 304
/// when `If-None-Match` matches, 206 for one satisfiable `Range`, 416 for
/// an unsatisfiable one, else 200 with every byte (docs/http-api.md,
/// "Cached images: GET /v1/cache"). The body streams from the open file.
enum CacheResponse {
    /// The bytes read from disk per write to the connection.
    static let chunkLength = 128 << 10

    /// The answer to `request` with `entry`'s bytes.
    /// - Throws: a 416 `Problem` for an unsatisfiable range.
    static func answer(_ request: Request, entry: CachedEntry, cacheControl: String) throws -> Response {
        var headers: HTTPFields = [
            .eTag: entry.etag,
            .lastModified: HTTPDate.format(entry.modified),
            .cacheControl: cacheControl,
            .acceptRanges: "bytes",
        ]
        let conditions = request.headers[values: .ifNoneMatch]
        if !conditions.isEmpty, EntityTagCondition.matches(conditions.joined(separator: ","), etag: entry.etag) {
            // (A 304's Content-Length, if any, must be the 200's: RFC 9110, 8.6.)
            headers[.contentLength] = String(entry.size)
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = entry.mediaType
        var range = ByteRangeRequest(header: request.headers[.range], size: entry.size)
        if let ifRange = request.headers[.ifRange], !ifRangeHolds(ifRange, entry: entry) { range = .whole }
        let status: HTTPResponse.Status, bytes: ClosedRange<Int>?
        switch range {
        case .whole:
            status = .ok
            bytes = entry.size > 0 ? 0...(entry.size - 1) : nil
        case .part(let part):
            status = .partialContent
            bytes = part
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(entry.size)"
        case .unsatisfiable:
            throw Problem("range_not_satisfiable", .rangeNotSatisfiable, "The range is not satisfiable",
                          detail: "the entry has \(entry.size) bytes", headers: [.contentRange: "bytes */\(entry.size)"])
        }
        let length = bytes?.count ?? 0
        headers[.contentLength] = String(length)
        guard request.method != .head, let bytes else {
            return Response(status: status, headers: headers, body: ResponseBody())
        }
        let body = ResponseBody(contentLength: length) { writer in
            var offset = bytes.lowerBound
            while offset <= bytes.upperBound {
                let count = min(chunkLength, bytes.upperBound - offset + 1)
                try await writer.write(try await entry.read(offset: offset, count: count))
                offset += count
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Whether `If-Range` lets a range be answered: a strong entity tag equal
    /// to the entry's, or exactly its `Last-Modified` (RFC 9110, 13.1.5).
    private static func ifRangeHolds(_ value: String, entry: CachedEntry) -> Bool {
        let value = value.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("\"") || value.hasPrefix("W/") { return value == entry.etag }
        return value == HTTPDate.format(entry.modified)
    }
}
