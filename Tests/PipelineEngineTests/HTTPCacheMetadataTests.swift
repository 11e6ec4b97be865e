import Foundation
import Testing
import WarmerSupport
@testable import PipelineEngine

/// The shared-cache rules of RFC 9111 on stored metadata: what is stored, how
/// long it is fresh, how it is revalidated, and its JSON sidecar format.
@Suite("HTTPCacheMetadata")
struct HTTPCacheMetadataTests {
    /// When the request was sent in most tests: Tue, 14 Nov 2023 22:13:20 GMT.
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let url = "https://cdn.example/a.jpg"

    /// `t0 + seconds`.
    static func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }
    /// `t0 + seconds` as an HTTP-date.
    static func http(_ seconds: TimeInterval) -> String { HTTPDate.format(at(seconds)) }

    /// The metadata stored for a response received at `t0 + responseDelay`.
    static func stored(
        _ headers: [String: String], status: Int = 200, requestHeaders: [String: String] = [:],
        responseDelay: TimeInterval = 0
    ) -> HTTPCacheMetadata? {
        HTTPCacheMetadata(
            storing: status, headers: headers, url: url, requestHeaders: requestHeaders,
            requestTime: t0, responseTime: at(responseDelay)
        )
    }

    // MARK: Storing

    @Test(arguments: [200, 203])
    func fullResponsesAreStored(_ status: Int) throws {
        let metadata = try #require(Self.stored(["cache-control": "max-age=60"], status: status))
        #expect(metadata.statusCode == status)
    }

    @Test(arguments: [206, 404, 304, 301, 204, 500])
    func otherStatusesAreNotStored(_ status: Int) {
        #expect(Self.stored(["cache-control": "public, max-age=60"], status: status) == nil)
    }

    @Test(arguments: ["private", #"private="set-cookie""#, "PRIVATE, max-age=60", "public, private"])
    func privateResponsesAreNotStored(_ cacheControl: String) {
        #expect(Self.stored(["cache-control": cacheControl]) == nil)
    }

    @Test(arguments: ["no-store", "max-age=60, no-store", "public, No-Store"])
    func noStoreResponsesAreNotStored(_ cacheControl: String) {
        #expect(Self.stored(["cache-control": cacheControl]) == nil)
    }

    @Test func noStoreInTheRequestPreventsStoring() {
        #expect(Self.stored(["cache-control": "max-age=60"], requestHeaders: ["cache-control": "no-store"]) == nil)
        #expect(Self.stored(["cache-control": "max-age=60"], requestHeaders: ["cache-control": "no-cache"]) != nil)
    }

    @Test(arguments: ["*", "accept, *", " * "])
    func varyStarIsNotStored(_ vary: String) {
        #expect(Self.stored(["cache-control": "max-age=60", "vary": vary]) == nil)
    }

    @Test(arguments: [
        (nil, false), ("max-age=60", false), ("no-cache", false), ("proxy-revalidate", false),
        ("public", true), ("public, max-age=60", true), ("s-maxage=60", true), ("s-maxage=abc", true),
        ("must-revalidate", true),
    ] as [(String?, Bool)])
    func authorizedRequestsAreStoredOnlyWithExplicitPermission(_ cacheControl: String?, _ isStored: Bool) {
        var headers: [String: String] = [:]
        headers["cache-control"] = cacheControl
        #expect((Self.stored(headers, requestHeaders: ["authorization": "Bearer x"]) != nil) == isStored)
        #expect(Self.stored(headers) != nil)
    }

    @Test func mixedCaseNamesCannotHideAuthorization() {
        #expect(Self.stored(["Cache-Control": "max-age=60"], requestHeaders: ["Authorization": "Bearer x"]) == nil)
        #expect(Self.stored(["Cache-Control": "private"]) == nil)
    }

    @Test func storesTheResponseFields() throws {
        let metadata = try #require(Self.stored([
            "etag": " \"abc\" ", "last-modified": Self.http(-86_400), "cache-control": "max-age=60",
            "expires": Self.http(3600), "date": Self.http(0), "age": "5", "vary": "Accept",
            "content-type": "image/jpeg", "content-length": "1234", "server": "nginx",
        ], requestHeaders: ["accept": "image/webp", "user-agent": "warmer"], responseDelay: 2))
        #expect(metadata.url == Self.url)
        #expect(metadata.requestTime == Self.t0)
        #expect(metadata.responseTime == Self.at(2))
        #expect(metadata.etag == "\"abc\"")
        #expect(metadata.lastModified == Self.http(-86_400))
        #expect(metadata.cacheControl == "max-age=60")
        #expect(metadata.expires == Self.http(3600))
        #expect(metadata.date == Self.http(0))
        #expect(metadata.age == "5")
        #expect(metadata.vary == "Accept")
        #expect(metadata.contentType == "image/jpeg")
        #expect(metadata.contentLength == 1234)
        #expect(metadata.varyRequestHeaders == ["accept": "image/webp"])
        #expect(metadata.cacheControlDirectives.maxAge == 60)
    }

    @Test(arguments: ["", "-1", "12a", "1e3"])
    func invalidContentLengthIsNotStored(_ value: String) throws {
        #expect(try #require(Self.stored(["content-length": value])).contentLength == nil)
    }

    @Test func emptyHeaderValuesCountAsAbsent() throws {
        let metadata = try #require(Self.stored(["etag": "", "last-modified": "  "]))
        #expect(metadata.etag == nil)
        #expect(metadata.lastModified == nil)
        #expect(!metadata.hasValidator)
    }

    @Test func varyRecordsNormalizedValuesAndEmptyForAbsentHeaders() throws {
        let metadata = try #require(Self.stored(
            ["vary": "Accept,  ACCEPT-Encoding ,, Origin"],
            requestHeaders: ["accept": "  image/webp,   image/*\t", "accept-encoding": "gzip"]
        ))
        #expect(metadata.varyRequestHeaders == ["accept": "image/webp, image/*", "accept-encoding": "gzip", "origin": ""])
    }

    // MARK: Freshness lifetime

    @Test func sMaxAgeWinsOverMaxAge() throws {
        let metadata = try #require(Self.stored(["cache-control": "max-age=60, s-maxage=120", "expires": Self.http(9000)]))
        #expect(metadata.freshnessLifetime() == 120)
    }

    @Test func maxAgeWinsOverExpires() throws {
        let metadata = try #require(Self.stored(["cache-control": "max-age=60", "expires": Self.http(9000), "date": Self.http(0)]))
        #expect(metadata.freshnessLifetime() == 60)
    }

    @Test func expiresIsMeasuredFromDate() throws {
        // Date is t0, the response arrived 5 s later: the lifetime is still Expires − Date.
        let metadata = try #require(Self.stored(["expires": Self.http(3600), "date": Self.http(0)], responseDelay: 5))
        #expect(metadata.freshnessLifetime() == 3600)
    }

    @Test func expiresWithoutDateIsMeasuredFromTheResponseTime() throws {
        let metadata = try #require(Self.stored(["expires": Self.http(3600)], responseDelay: 100))
        #expect(metadata.freshnessLifetime() == 3500)
        let invalidDate = try #require(Self.stored(["expires": Self.http(3600), "date": "yesterday"], responseDelay: 100))
        #expect(invalidDate.freshnessLifetime() == 3500)
    }

    @Test func expiresInThePastIsStale() throws {
        let metadata = try #require(Self.stored(["expires": Self.http(-3600), "date": Self.http(0)]))
        #expect(metadata.freshnessLifetime() == 0)
        #expect(!metadata.isFresh(at: Self.t0))
    }

    @Test(arguments: ["0", "-1", "never", "Sun, 06 Nov 1994 08:49:37 CET"])
    func invalidExpiresIsStale(_ expires: String) throws {
        // A Last-Modified long ago would give heuristic freshness if Expires were ignored.
        let metadata = try #require(Self.stored(["expires": expires, "last-modified": Self.http(-864_000), "date": Self.http(0)]))
        #expect(metadata.freshnessLifetime() == 0)
        #expect(!metadata.isFresh(at: Self.t0))
    }

    @Test func expiresWinsOverTheHeuristic() throws {
        let metadata = try #require(Self.stored([
            "expires": Self.http(60), "last-modified": Self.http(-864_000), "date": Self.http(0),
        ]))
        #expect(metadata.freshnessLifetime() == 60)
    }

    @Test func heuristicFreshnessIsTenPercentOfLastModifiedAge() throws {
        let metadata = try #require(Self.stored(["last-modified": Self.http(-5 * 86_400), "date": Self.http(0)]))
        #expect(metadata.freshnessLifetime() == 43_200)
    }

    @Test(arguments: [(86_400.0, 86_400.0), (3600, 3600), (0, 0), (-5, 0)])
    func heuristicFreshnessIsCappedAtTheLimit(_ limit: TimeInterval, _ lifetime: TimeInterval) throws {
        let metadata = try #require(Self.stored(["last-modified": Self.http(-100 * 86_400), "date": Self.http(0)]))
        #expect(metadata.freshnessLifetime(heuristicLimit: limit) == lifetime)
    }

    @Test func heuristicWithoutDateUsesTheResponseTime() throws {
        let metadata = try #require(Self.stored(["last-modified": Self.http(-1000)], responseDelay: 1000))
        #expect(metadata.freshnessLifetime() == 200)
    }

    @Test func lastModifiedAfterDateGivesNoHeuristicFreshness() throws {
        let metadata = try #require(Self.stored(["last-modified": Self.http(600), "date": Self.http(0)]))
        #expect(metadata.freshnessLifetime() == 0)
    }

    @Test func invalidLastModifiedGivesNoHeuristicFreshness() throws {
        let metadata = try #require(Self.stored(["last-modified": "long ago", "date": Self.http(0)]))
        #expect(metadata.freshnessLifetime() == 0)
    }

    @Test func withoutAnyInformationTheLifetimeIsZero() throws {
        let metadata = try #require(Self.stored(["content-type": "image/png", "date": Self.http(0)]))
        #expect(metadata.freshnessLifetime() == 0)
        #expect(!metadata.isFresh(at: Self.t0))
    }

    // MARK: Age and freshness

    @Test func ageHeaderAndResponseDelayAddToCurrentAge() throws {
        // Requested at t0, received at t0 + 2 with Date t0 + 2 (apparent age 0) and Age 10.
        let metadata = try #require(Self.stored(["age": "10", "date": Self.http(2)], responseDelay: 2))
        #expect(metadata.currentAge(at: Self.at(2)) == 12)
        #expect(metadata.currentAge(at: Self.at(32)) == 42)
    }

    @Test func apparentAgeWinsWhenLarger() throws {
        // Date 100 s before the response: apparent age 100 > Age 5 + delay 1.
        let metadata = try #require(Self.stored(["age": "5", "date": Self.http(-99)], responseDelay: 1))
        #expect(metadata.currentAge(at: Self.at(1)) == 100)
        #expect(metadata.currentAge(at: Self.at(11)) == 110)
    }

    @Test func dateAfterTheResponseGivesNoNegativeAge() throws {
        let metadata = try #require(Self.stored(["date": Self.http(500)], responseDelay: 3))
        #expect(metadata.currentAge(at: Self.at(3)) == 3)
    }

    @Test func clocksGoingBackwardsGiveNoNegativeAge() throws {
        let metadata = HTTPCacheMetadata(url: Self.url, statusCode: 200, requestTime: Self.at(10), responseTime: Self.t0)
        #expect(metadata.currentAge(at: Self.at(-50)) == 0)
    }

    @Test(arguments: ["abc", "-5", "1.5", "5, 7"])
    func invalidAgeIsIgnored(_ age: String) throws {
        let metadata = try #require(Self.stored(["age": age, "date": Self.http(0)], responseDelay: 1))
        #expect(metadata.currentAge(at: Self.at(1)) == 1)
    }

    @Test func freshUntilTheLifetimeIsReachedThenStale() throws {
        let metadata = try #require(Self.stored(["cache-control": "max-age=100", "date": Self.http(0)]))
        #expect(metadata.isFresh(at: Self.at(99)))
        #expect(!metadata.isFresh(at: Self.at(100)))
    }

    @Test func ageCountsAgainstFreshness() throws {
        let metadata = try #require(Self.stored(["cache-control": "max-age=100", "age": "90", "date": Self.http(0)]))
        #expect(metadata.isFresh(at: Self.at(9)))
        #expect(!metadata.isFresh(at: Self.at(10)))
    }

    @Test func maxAgeZeroIsStaleImmediately() throws {
        let metadata = try #require(Self.stored(["cache-control": "max-age=0", "expires": Self.http(3600)]))
        #expect(!metadata.isFresh(at: Self.t0))
    }

    @Test func noCacheIsNeverFresh() throws {
        let metadata = try #require(Self.stored(["cache-control": "no-cache, max-age=3600", "date": Self.http(0)]))
        #expect(metadata.freshnessLifetime() == 3600)
        #expect(!metadata.isFresh(at: Self.at(1)))
    }

    @Test func mustRevalidateDoesNotShortenFreshness() throws {
        let metadata = try #require(Self.stored(["cache-control": "must-revalidate, proxy-revalidate, max-age=60"]))
        #expect(metadata.isFresh(at: Self.at(30)))
        #expect(!metadata.isFresh(at: Self.at(60)))
    }

    @Test func isFreshPassesTheHeuristicLimitOn() throws {
        let metadata = try #require(Self.stored(["last-modified": Self.http(-10 * 86_400), "date": Self.http(0)]))
        #expect(metadata.isFresh(at: Self.at(1000)))
        #expect(!metadata.isFresh(at: Self.at(1000), heuristicLimit: 500))
    }

    // MARK: Validators

    @Test func conditionalRequestCarriesEveryValidator() throws {
        let both = try #require(Self.stored(["etag": "W/\"v1\"", "last-modified": Self.http(-60)]))
        #expect(both.hasValidator)
        #expect(both.conditionalRequestHeaders == ["If-None-Match": "W/\"v1\"", "If-Modified-Since": Self.http(-60)])
        let etagOnly = try #require(Self.stored(["etag": "\"v1\""]))
        #expect(etagOnly.conditionalRequestHeaders == ["If-None-Match": "\"v1\""])
        let lastModifiedOnly = try #require(Self.stored(["last-modified": Self.http(-60)]))
        #expect(lastModifiedOnly.hasValidator)
        #expect(lastModifiedOnly.conditionalRequestHeaders == ["If-Modified-Since": Self.http(-60)])
        let none = try #require(Self.stored(["cache-control": "max-age=60"]))
        #expect(!none.hasValidator)
        #expect(none.conditionalRequestHeaders.isEmpty)
    }

    @Test func variantValidatorPrefersTheETag() throws {
        #expect(try #require(Self.stored(["etag": "\"v1\"", "last-modified": Self.http(-60)])).variantValidator == "\"v1\"")
        #expect(try #require(Self.stored(["last-modified": Self.http(-60)])).variantValidator == "lm:" + Self.http(-60))
        #expect(try #require(Self.stored([:])).variantValidator == nil)
    }

    @Test(arguments: [
        (["etag": "\"v1\"", "last-modified": http(-60), "date": http(0)], "\"v1\""),
        (["ETag": "\"v1\""], "\"v1\""),
        (["etag": "W/\"v1\"", "last-modified": http(-60), "date": http(0)], nil),
        (["etag": "w/\"v1\""], nil),
        (["last-modified": http(-60), "date": http(0)], http(-60)),
        (["last-modified": http(-1), "date": http(0)], http(-1)),
        (["last-modified": http(0), "date": http(0)], nil),
        (["last-modified": http(60), "date": http(0)], nil),
        (["last-modified": http(-60)], http(-60)),
        (["last-modified": http(-60), "date": "garbage"], nil),
        (["last-modified": "garbage", "date": http(0)], nil),
        ([:], nil),
    ] as [([String: String], String?)])
    func ifRangeUsesOnlyStrongValidators(_ headers: [String: String], _ validator: String?) {
        #expect(HTTPCacheMetadata.ifRangeValidator(headers: headers) == validator)
    }
}
