import DigestKit
import Foundation
import HTTPTypes
import NIOCore
import Testing
import WarmerWorker
@testable import WarmerServer

/// `GET /v1/cache` (and `HEAD`) over a real `DataCache` in a temporary
/// folder holding entries the test stores under the key `warmer cache get`
/// uses (`CacheKey`): the bytes with their validators, 304s, ranges, misses
/// and refused queries (docs/http-api.md, "Cached images"). In-process,
/// router mode: no service (`warm=1`, which loads from an origin, is left
/// to CacheEndpointTests).
@Suite struct CacheRouteTests {
    static let url = "https://images.example/photo.jpg"

    /// 64 KiB that read as a JPEG (its signature, then bytes that differ everywhere).
    static let jpeg: Data = {
        var generator = SystemRandomNumberGenerator()
        return Data([0xFF, 0xD8, 0xFF, 0xE0] + (0..<(64 << 10) - 4).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }()

    /// `/v1/cache?url=…` for `url`, percent-encoded, with `processing` when given.
    static func path(_ url: String = url, processing: String? = nil, extra: String = "") -> String {
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }
        return "/v1/cache?url=" + encoded(url) + (processing.map { "&processing=" + encoded($0) } ?? "") + extra
    }

    /// A server over a cache holding `jpeg` as `url`'s original data.
    static func serverWithEntry(tokens: Bool = true) async throws -> InProcessServer {
        let fixture = try InProcessServer(tokens: tokens)
        _ = try await fixture.dataCache.write(jpeg, for: CacheKey.of(url, processing: nil))
        return fixture
    }

    @Test func anEntryIsServedWithItsBytesTagAndValidators() async throws {
        let fixture = try await Self.serverWithEntry()
        defer { fixture.remove() }
        let tag = "\"" + MessageDigest.sha256(Self.jpeg).hexString + "\""
        try await fixture.routed { client in
            let whole = try await client.send(.get, Self.path(), token: InProcessServer.readToken)
            #expect(whole.status == .ok, "\(whole)")
            #expect(Data(whole.body.readableBytesView) == Self.jpeg)
            #expect(whole["Content-Type"] == "image/jpeg" && whole["ETag"] == tag, "\(whole)")
            #expect(whole["Content-Length"] == String(Self.jpeg.count) && whole["Accept-Ranges"] == "bytes", "\(whole)")
            // (A server with tokens keeps shared caches from handing the bytes to callers without one.)
            #expect(whole["Cache-Control"] == "private, max-age=3600", "\(whole)")
            #expect(whole["Last-Modified"]?.hasSuffix(" GMT") == true, "\(whole)")

            let head = try await client.send(.head, Self.path(), token: InProcessServer.readToken)
            #expect(head.status == .ok && head.body.readableBytes == 0, "\(head)")
            #expect(head["Content-Length"] == String(Self.jpeg.count) && head["ETag"] == tag && head["Content-Type"] == "image/jpeg",
                    "\(head)")
        }
    }

    @Test func aServerWithoutTokensLetsSharedCachesKeepTheAnswer() async throws {
        let fixture = try await Self.serverWithEntry(tokens: false)
        defer { fixture.remove() }
        try await fixture.routed { client in
            let whole = try await client.send(.get, Self.path(), token: nil)
            #expect(whole.status == .ok && whole["Cache-Control"] == "public, max-age=3600", "\(whole)")
        }
    }

    @Test func aMatchingIfNoneMatchIsANotModifiedWithoutABody() async throws {
        let fixture = try await Self.serverWithEntry()
        defer { fixture.remove() }
        try await fixture.routed { client in
            let tag = try #require(try await client.send(.get, Self.path(), token: InProcessServer.readToken)["ETag"])
            for condition in [tag, "\"other\", W/\(tag)", "*"] {
                for method in [HTTPRequest.Method.get, .head] {
                    let answer = try await client.send(method, Self.path(), token: InProcessServer.readToken, headers: ["If-None-Match": condition])
                    #expect(answer.status == .notModified && answer.body.readableBytes == 0, "\(method) \(condition): \(answer)")
                    #expect(answer["ETag"] == tag, "\(answer)")
                }
            }
            let changed = try await client.send(.get, Self.path(), token: InProcessServer.readToken, headers: ["If-None-Match": "\"else\""])
            #expect(changed.status == .ok && Data(changed.body.readableBytesView) == Self.jpeg, "\(changed)")
        }
    }

    @Test func rangesAreAnsweredWithTheirSliceOrA416() async throws {
        let fixture = try await Self.serverWithEntry()
        defer { fixture.remove() }
        let size = Self.jpeg.count
        try await fixture.routed { client in
            let cases: [(String, Range<Int>)] = [("bytes=10-99", 10..<100), ("bytes=-50", (size - 50)..<size),
                                                 ("bytes=\(size - 7)-", (size - 7)..<size), ("bytes=0-", 0..<size)]
            for (header, slice) in cases {
                let part = try await client.send(.get, Self.path(), token: InProcessServer.readToken, headers: ["Range": header])
                #expect(part.status == .partialContent, "\(header): \(part)")
                #expect(Data(part.body.readableBytesView) == Self.jpeg.subdata(in: slice), "\(header)")
                #expect(part["Content-Range"] == "bytes \(slice.lowerBound)-\(slice.upperBound - 1)/\(size)", "\(part)")
                #expect(part["Content-Length"] == String(slice.count), "\(part)")
            }
            let beyond = try await client.send(.get, Self.path(), token: InProcessServer.readToken, headers: ["Range": "bytes=\(size)-"])
            #expect(beyond.status == .rangeNotSatisfiable && beyond.code == "range_not_satisfiable", "\(beyond)")
            #expect(beyond["Content-Range"] == "bytes */\(size)", "\(beyond)")
            // Several ranges, or an If-Range naming another version, are answered whole
            let several = try await client.send(.get, Self.path(), token: InProcessServer.readToken, headers: ["Range": "bytes=0-1,5-9"])
            #expect(several.status == .ok && Data(several.body.readableBytesView) == Self.jpeg, "\(several)")
            let tag = try #require(several["ETag"])
            let stale = try await client.send(.get, Self.path(), token: InProcessServer.readToken,
                                              headers: ["Range": "bytes=0-9", "If-Range": "\"an-older-version\""])
            #expect(stale.status == .ok && stale.body.readableBytes == size, "\(stale)")
            let current = try await client.send(.get, Self.path(), token: InProcessServer.readToken,
                                                headers: ["Range": "bytes=0-9", "If-Range": tag])
            #expect(current.status == .partialContent && Data(current.body.readableBytesView) == Self.jpeg.prefix(10), "\(current)")
        }
    }

    @Test func aVariantIsFoundByItsProcessingAndAMissIsANotCachedProblem() async throws {
        let fixture = try await Self.serverWithEntry()
        defer { fixture.remove() }
        let spec = "thumbnail=64&format=png"
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 100)
        let processing = try fixture.server.cache.processingRules.spec(spec)
        _ = try await fixture.dataCache.write(png, for: CacheKey.of(Self.url, processing: processing))
        try await fixture.routed { client in
            let variant = try await client.send(.get, Self.path(processing: spec), token: InProcessServer.readToken)
            #expect(variant.status == .ok && variant["Content-Type"] == "image/png" && Data(variant.body.readableBytesView) == png, "\(variant)")
            let otherVariant = try await client.send(.get, Self.path(processing: "thumbnail=32"), token: InProcessServer.readToken)
            #expect(otherVariant.status == .notFound && otherVariant.code == "not_cached", "\(otherVariant)")
            let otherURL = "https://images.example/never-warmed.jpg"
            let miss = try await client.send(.get, Self.path(otherURL), token: InProcessServer.readToken)
            #expect(miss.status == .notFound && miss.code == "not_cached", "\(miss)")
            #expect(miss["Content-Type"] == "application/problem+json" && miss["Cache-Control"] == "no-store", "\(miss)")
            #expect((miss.json["detail"] as? String)?.contains(otherURL) == true, "\(miss)")
        }
    }

    @Test func malformedQueriesAreBadRequests() async throws {
        let fixture = try await Self.serverWithEntry()
        defer { fixture.remove() }
        try await fixture.routed { client in
            let cases: [(String, String)] = [
                (Self.path(processing: "thumbnail=huge"), "processing: "),
                (Self.path(processing: "resize=99999x99999"), "processing: "),
                (Self.path(processing: "sharpen=1"), "processing: "),
                ("/v1/cache", "url is required"),
                ("/v1/cache?url=", "url is required"),
                (Self.path("file:///etc/passwd"), "absolute http or https"),
                (Self.path("images.example/photo.jpg"), "absolute http or https"),
                (Self.path("https://images.example/" + String(repeating: "a", count: 9000)), "longer than 8192"),
                (Self.path(extra: "&warm=2"), "warm must be 0 or 1"),
            ]
            for (path, detail) in cases {
                let answer = try await client.send(.get, path, token: InProcessServer.readToken)
                #expect(answer.status == .badRequest && answer.code == "bad_request", "\(path.prefix(120)): \(answer)")
                #expect((answer.json["detail"] as? String)?.contains(detail) == true, "\(path.prefix(120)): \(answer)")
            }
            // warm=0 is a plain read
            let plain = try await client.send(.get, Self.path(extra: "&warm=0"), token: InProcessServer.readToken)
            #expect(plain.status == .ok, "\(plain)")
        }
    }
}
