import Foundation
import Testing
import WarmerSupport
@testable import PipelineEngine

/// Freshening a stored entry with a 304 (RFC 9111 §4.3.4).
extension HTTPCacheMetadataTests {
    /// An entry with ETag `"v1"`, Last-Modified a day before t0, stale after a minute.
    static func entry(etag: String? = "\"v1\"") throws -> HTTPCacheMetadata {
        var headers = [
            "last-modified": http(-86_400), "cache-control": "max-age=60", "date": http(0), "age": "30",
            "expires": http(60), "vary": "Accept", "content-type": "image/jpeg", "content-length": "10",
        ]
        headers["etag"] = etag
        return try #require(stored(headers, requestHeaders: ["accept": "image/*"]))
    }

    @Test func notModifiedWithMatchingETagFreshensTheEntry() throws {
        let entry = try Self.entry()
        let refreshed = try #require(entry.refreshed(
            with: ["etag": "\"v1\"", "cache-control": "max-age=600", "date": Self.http(1000), "content-length": "0"],
            requestTime: Self.at(999), responseTime: Self.at(1000)
        ))
        #expect(refreshed.requestTime == Self.at(999))
        #expect(refreshed.responseTime == Self.at(1000))
        #expect(refreshed.cacheControl == "max-age=600")
        #expect(refreshed.date == Self.http(1000))
        #expect(refreshed.age == nil)
        // Not carried by the 304: kept.
        #expect(refreshed.etag == "\"v1\"")
        #expect(refreshed.lastModified == Self.http(-86_400))
        #expect(refreshed.expires == Self.http(60))
        #expect(refreshed.vary == "Accept")
        #expect(refreshed.contentType == "image/jpeg")
        #expect(refreshed.contentLength == 10)
        #expect(refreshed.varyRequestHeaders == entry.varyRequestHeaders)
        #expect(refreshed.url == entry.url && refreshed.statusCode == entry.statusCode)
        // Stale before; after, fresh for max-age=600 from the 304, less its 1 s delay.
        #expect(!entry.isFresh(at: Self.at(1001)))
        #expect(refreshed.currentAge(at: Self.at(1000)) == 1)
        #expect(refreshed.isFresh(at: Self.at(1598)))
        #expect(!refreshed.isFresh(at: Self.at(1599)))
    }

    @Test func notModifiedReplacesEveryFieldItCarries() throws {
        let refreshed = try #require(try Self.entry().refreshed(
            with: [
                "ETag": "\"v1\"", "Last-Modified": Self.http(-86_400), "Cache-Control": "no-cache",
                "Expires": Self.http(5000), "Date": Self.http(999), "Age": "7", "Vary": "Accept, Origin",
            ],
            requestTime: Self.at(999), responseTime: Self.at(1000)
        ))
        #expect(refreshed.cacheControl == "no-cache")
        #expect(refreshed.expires == Self.http(5000))
        #expect(refreshed.date == Self.http(999))
        #expect(refreshed.age == "7")
        #expect(refreshed.vary == "Accept, Origin")
    }

    @Test func notModifiedWithoutDateOrAgeIsAgedFromItsArrival() throws {
        // The stored Date (t0) and Age (30) belong to the first download.
        let refreshed = try #require(try Self.entry().refreshed(with: [:], requestTime: Self.at(1000), responseTime: Self.at(1000)))
        #expect(refreshed.date == Self.http(1000))
        #expect(refreshed.age == nil)
        #expect(refreshed.currentAge(at: Self.at(1010)) == 10)
        #expect(refreshed.cacheControl == "max-age=60")
        #expect(refreshed.isFresh(at: Self.at(1059)))
    }

    @Test func notModifiedWithChangedStrongETagIsRejected() throws {
        #expect(try Self.entry().refreshed(with: ["etag": "\"v2\""], requestTime: Self.at(10), responseTime: Self.at(11)) == nil)
        #expect(try Self.entry(etag: "W/\"v1\"").refreshed(with: ["etag": "\"v1\""], requestTime: Self.at(10), responseTime: Self.at(11)) == nil)
        #expect(try Self.entry(etag: nil).refreshed(with: ["etag": "\"v1\""], requestTime: Self.at(10), responseTime: Self.at(11)) == nil)
    }

    @Test(arguments: [
        ("\"v1\"", "W/\"v1\"", true), ("W/\"v1\"", "W/\"v1\"", true), ("W/\"v1\"", "W/\"v2\"", false),
        ("\"v1\"", "W/\"v2\"", false), (nil, "W/\"v1\"", false),
    ] as [(String?, String, Bool)])
    func notModifiedWithWeakETagUsesWeakComparison(_ stored: String?, _ received: String, _ isAccepted: Bool) throws {
        let refreshed = try Self.entry(etag: stored).refreshed(with: ["etag": received], requestTime: Self.at(10), responseTime: Self.at(11))
        #expect((refreshed != nil) == isAccepted)
    }

    @Test func notModifiedWithoutETagButDifferentLastModifiedIsRejected() throws {
        let entry = try Self.entry()
        #expect(entry.refreshed(with: ["last-modified": Self.http(-3600)], requestTime: Self.at(10), responseTime: Self.at(11)) == nil)
        // The same instant in the obsolete RFC 850 format is the same validator.
        let rfc850 = "Monday, 13-Nov-23 22:13:20 GMT"
        #expect(HTTPDate.parse(rfc850, relativeTo: Self.t0) == Self.at(-86_400))
        #expect(entry.refreshed(with: ["last-modified": rfc850], requestTime: Self.at(10), responseTime: Self.at(11)) != nil)
    }

    // MARK: Vary

    @Test func varyMatchesTheSameValuesAfterNormalizing() throws {
        let metadata = try #require(Self.stored(
            ["vary": "Accept, Accept-Encoding"], requestHeaders: ["accept": "image/webp, image/*", "accept-encoding": "gzip"]
        ))
        #expect(metadata.matchesVary(requestHeaders: ["accept": "  image/webp,\t image/* ", "accept-encoding": "gzip", "x": "y"]))
        #expect(metadata.matchesVary(requestHeaders: ["Accept": "image/webp, image/*", "ACCEPT-ENCODING": "gzip"]))
        #expect(!metadata.matchesVary(requestHeaders: ["accept": "image/avif", "accept-encoding": "gzip"]))
        #expect(!metadata.matchesVary(requestHeaders: ["accept": "image/webp, image/*"]))
        #expect(!metadata.matchesVary(requestHeaders: ["accept": "image/webp,image/*", "accept-encoding": "gzip"]))
    }

    @Test func anAbsentVariedHeaderMatchesOnlyAnAbsentOrEmptyOne() throws {
        let metadata = try #require(Self.stored(["vary": "Origin"]))
        #expect(metadata.matchesVary(requestHeaders: [:]))
        #expect(metadata.matchesVary(requestHeaders: ["origin": " "]))
        #expect(!metadata.matchesVary(requestHeaders: ["origin": "https://a.example"]))
    }

    @Test func withoutVaryEveryRequestMatches() throws {
        let metadata = try #require(Self.stored(["cache-control": "max-age=60"]))
        #expect(metadata.matchesVary(requestHeaders: ["accept": "image/avif", "origin": "x"]))
    }

    @Test func varyStarOrAnUnrecordedFieldNeverMatches() throws {
        let star = HTTPCacheMetadata(url: Self.url, statusCode: 200, requestTime: Self.t0, responseTime: Self.t0, vary: "*")
        #expect(!star.matchesVary(requestHeaders: [:]))
        // A 304 that adds Origin to Vary: the request's Origin was never recorded.
        let refreshed = try #require(try Self.entry().refreshed(with: ["vary": "Accept, Origin"], requestTime: Self.at(10), responseTime: Self.at(11)))
        #expect(!refreshed.matchesVary(requestHeaders: ["accept": "image/*"]))
        #expect(try Self.entry().matchesVary(requestHeaders: ["accept": "image/*"]))
    }

    // MARK: JSON

    /// A metadata with every field set and fractional times.
    static let full = HTTPCacheMetadata(
        url: url, statusCode: 203, requestTime: Date(timeIntervalSince1970: 1_700_000_000.25),
        responseTime: Date(timeIntervalSince1970: 1_700_000_001.5), etag: "W/\"v1\"", lastModified: http(-86_400),
        cacheControl: "max-age=60, s-maxage=\"120\"", expires: http(3600), date: http(1), age: "3", vary: "Accept",
        contentType: "image/jpeg", contentLength: 123_456, varyRequestHeaders: ["accept": "image/webp"]
    )

    @Test func metadataRoundTripsThroughJSON() throws {
        #expect(HTTPCacheMetadata.decode(Self.full.encoded()) == Self.full)
        let minimal = HTTPCacheMetadata(url: Self.url, statusCode: 200, requestTime: Self.t0, responseTime: Self.at(1))
        #expect(HTTPCacheMetadata.decode(minimal.encoded()) == minimal)
    }

    @Test func jsonIsCompactWithSortedDocumentedKeys() throws {
        let json = String(decoding: Self.full.encoded(), as: UTF8.self)
        #expect(!json.contains("\n"))
        #expect(json.contains(#""url":"https://cdn.example/a.jpg""#))
        let object = try #require(try JSONSerialization.jsonObject(with: Self.full.encoded()) as? [String: Any])
        let keys = [
            "age", "cache_control", "content_length", "content_type", "date", "etag", "expires", "last_modified",
            "request_time", "response_time", "status_code", "url", "v", "vary", "vary_request_headers",
        ]
        #expect(object.keys.sorted() == keys)
        let positions = keys.map { json.range(of: "\"\($0)\":")!.lowerBound }
        #expect(positions == positions.sorted())
        #expect(object["v"] as? Int == 1)
        #expect(object["request_time"] as? Double == 1_700_000_000.25)
        #expect(object["content_length"] as? Int == 123_456)
        #expect(object["vary_request_headers"] as? [String: String] == ["accept": "image/webp"])
    }

    @Test func absentFieldsAreOmitted() throws {
        let minimal = HTTPCacheMetadata(url: Self.url, statusCode: 200, requestTime: Self.t0, responseTime: Self.t0)
        let object = try #require(try JSONSerialization.jsonObject(with: minimal.encoded()) as? [String: Any])
        #expect(Set(object.keys) == ["v", "url", "status_code", "request_time", "response_time", "vary_request_headers"])
    }

    @Test func readsWhatAnotherProgramWrote() throws {
        // The example of docs/http-cache-metadata.md, with the keys in any order.
        let json = #"""
        {"v": 1, "url": "https://cdn.example/a.jpg", "status_code": 200,
         "request_time": 1700000000.25, "response_time": 1700000000.5,
         "etag": "\"5f3c-1a2b\"", "last_modified": "Mon, 13 Nov 2023 10:00:00 GMT",
         "cache_control": "public, max-age=3600", "date": "Tue, 14 Nov 2023 22:13:20 GMT",
         "vary": "Accept", "content_type": "image/jpeg", "content_length": 48213,
         "vary_request_headers": {"accept": "image/avif,image/webp,*/*"}, "future_field": true}
        """#
        let metadata = try #require(HTTPCacheMetadata.decode(Data(json.utf8)))
        #expect(metadata.etag == "\"5f3c-1a2b\"")
        #expect(metadata.requestTime == Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(metadata.expires == nil && metadata.age == nil)
        #expect(metadata.contentLength == 48_213)
        #expect(metadata.freshnessLifetime() == 3600)
        #expect(metadata.isFresh(at: Self.at(3599)))
        #expect(!metadata.isFresh(at: Self.at(3600.5)))
    }

    @Test func encodingWritesTheDocumentedExample() throws {
        let example = HTTPCacheMetadata(
            url: Self.url, statusCode: 200, requestTime: Date(timeIntervalSince1970: 1_700_000_000.25),
            responseTime: Date(timeIntervalSince1970: 1_700_000_000.5), etag: "\"5f3c-1a2b\"",
            lastModified: "Mon, 13 Nov 2023 10:00:00 GMT", cacheControl: "public, max-age=3600",
            date: "Tue, 14 Nov 2023 22:13:20 GMT", vary: "Accept", contentType: "image/jpeg", contentLength: 48_213,
            varyRequestHeaders: ["accept": "image/avif,image/webp,*/*"]
        )
        let json = #"{"cache_control":"public, max-age=3600","content_length":48213,"content_type":"image/jpeg","date":"Tue, 14 Nov 2023 22:13:20 GMT","etag":"\"5f3c-1a2b\"","last_modified":"Mon, 13 Nov 2023 10:00:00 GMT","request_time":1700000000.25,"response_time":1700000000.5,"status_code":200,"url":"https://cdn.example/a.jpg","v":1,"vary":"Accept","vary_request_headers":{"accept":"image/avif,image/webp,*/*"}}"#
        #expect(String(decoding: example.encoded(), as: UTF8.self) == json)
    }

    @Test(arguments: [#""v":2,"#, #""v":0,"#, #""v":"1","#, ""])
    func unknownVersionIsRejected(_ version: String) {
        let json = #"{\#(version)"url":"u","status_code":200,"request_time":1,"response_time":2,"vary_request_headers":{}}"#
        #expect(HTTPCacheMetadata.decode(Data(json.utf8)) == nil)
        // The same object with "v":1 is accepted, so the version is what is rejected.
        let valid = #"{"v":1,"url":"u","status_code":200,"request_time":1,"response_time":2,"vary_request_headers":{}}"#
        #expect(HTTPCacheMetadata.decode(Data(valid.utf8)) != nil)
    }

    @Test(arguments: [
        "", "{", "[]", "null", #"{"v":1}"#,
        #"{"v":1,"status_code":200,"request_time":1,"response_time":2}"#,
        #"{"v":1,"url":"u","status_code":"200","request_time":1,"response_time":2}"#,
        #"{"v":1,"url":"u","status_code":200,"request_time":"1","response_time":2}"#,
        #"{"v":1,"url":"u","status_code":200,"request_time":1e300,"response_time":2}"#,
        #"{"v":1,"url":"u","status_code":200,"request_time":1,"response_time":2,"etag":5}"#,
    ])
    func malformedDataIsRejected(_ json: String) {
        #expect(HTTPCacheMetadata.decode(Data(json.utf8)) == nil)
    }
}
