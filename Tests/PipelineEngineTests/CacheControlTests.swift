import Testing
@testable import PipelineEngine

/// Parsing `Cache-Control` (RFC 9111 §5.2), erring toward less caching.
@Suite("CacheControl")
struct CacheControlTests {
    @Test func noHeaderMeansNoDirectives() {
        let directives = CacheControl(nil)
        #expect(directives == CacheControl(""))
        #expect(!directives.noStore && !directives.noCache && !directives.isPrivate && !directives.isPublic)
        #expect(!directives.mustRevalidate && !directives.proxyRevalidate && !directives.immutable)
        #expect(directives.maxAge == nil && directives.sMaxAge == nil)
    }

    @Test func directiveNamesAreCaseInsensitive() {
        let directives = CacheControl("No-Store, NO-CACHE, Private, PUBLIC, Must-Revalidate, proxy-REVALIDATE, Immutable, Max-Age=5, S-MAXAGE=7")
        #expect(directives.noStore && directives.noCache && directives.isPrivate && directives.isPublic)
        #expect(directives.mustRevalidate && directives.proxyRevalidate && directives.immutable)
        #expect(directives.maxAge == 5)
        #expect(directives.sMaxAge == 7)
    }

    @Test func eachFlagIsSetByItsOwnDirectiveOnly() {
        #expect(CacheControl("no-store").noStore && !CacheControl("no-store").noCache)
        #expect(CacheControl("no-cache").noCache && !CacheControl("no-cache").noStore)
        #expect(CacheControl("private").isPrivate && !CacheControl("private").isPublic)
        #expect(CacheControl("public").isPublic && !CacheControl("public").isPrivate)
        #expect(CacheControl("must-revalidate").mustRevalidate && !CacheControl("must-revalidate").proxyRevalidate)
        #expect(CacheControl("proxy-revalidate").proxyRevalidate && !CacheControl("proxy-revalidate").mustRevalidate)
        #expect(CacheControl("immutable").immutable)
        #expect(CacheControl("s-maxage=5").maxAge == nil)
        #expect(CacheControl("max-age=5").sMaxAge == nil)
    }

    @Test func quotedCommasDoNotSplitDirectives() {
        let directives = CacheControl(#"private="set-cookie, max-age=5", no-cache="a,s-maxage=9", max-age=60"#)
        #expect(directives.isPrivate)
        #expect(directives.noCache)
        #expect(directives.maxAge == 60)
        #expect(directives.sMaxAge == nil)
    }

    @Test func escapedQuotesStayInsideTheArgument() {
        let directives = CacheControl(#"ext="a\", max-age=1, b", max-age=9"#)
        #expect(directives.maxAge == 9)
    }

    @Test func whitespaceAndEmptyElementsAreTolerated() {
        let directives = CacheControl(" , max-age = 30 ,,\tno-store ,")
        #expect(directives.maxAge == 30)
        #expect(directives.noStore)
    }

    @Test func unknownDirectivesAreIgnored() {
        let directives = CacheControl("stale-while-revalidate=30, foo, bar=\"baz\", max-age=5")
        #expect(directives.maxAge == 5)
        #expect(directives == CacheControl("max-age=5"))
    }

    @Test func quotedNumbersAreAccepted() {
        #expect(CacheControl(#"max-age="60""#).maxAge == 60)
        #expect(CacheControl(#"s-maxage="0""#).sMaxAge == 0)
    }

    @Test(arguments: [
        "max-age=abc", "max-age=-1", "max-age=", "max-age", "max-age=1.5", "max-age=+5", "max-age=6 0",
        #"max-age="60"#, #"max-age="60"x"#, #"max-age="""#,
    ])
    func invalidNumbersMeanStale(_ value: String) {
        #expect(CacheControl(value).maxAge == 0)
        #expect(CacheControl(value.replacingOccurrences(of: "max-age", with: "s-maxage")).sMaxAge == 0)
    }

    @Test(arguments: ["max-age=60, max-age=120", "max-age=60, max-age=60", "max-age=60, no-cache, MAX-AGE=5, max-age=7"])
    func duplicatedMaxAgeMeansStale(_ value: String) {
        #expect(CacheControl(value).maxAge == 0)
    }

    @Test func duplicatedSMaxAgeMeansStale() {
        let directives = CacheControl("s-maxage=600, max-age=60, s-maxage=600")
        #expect(directives.sMaxAge == 0)
        #expect(directives.maxAge == 60)
    }

    @Test func hugeValuesAreCappedAtTwoToThe31st() {
        #expect(CacheControl("max-age=99999999999999999999999999").maxAge == 2_147_483_648)
        #expect(CacheControl("max-age=2147483647").maxAge == 2_147_483_647)
    }

    @Test func qualifiedNoCacheAndPrivateCountAsUnqualified() {
        #expect(CacheControl(#"no-cache="Set-Cookie""#).noCache)
        #expect(CacheControl("no-cache=Set-Cookie").noCache)
        #expect(CacheControl(#"private="X-Session""#).isPrivate)
        #expect(CacheControl(#"no-store="x""#).noStore)
        #expect(CacheControl(#"must-revalidate="x""#).mustRevalidate)
    }

    @Test func argumentsDoNotEnablePublicOrImmutable() {
        #expect(!CacheControl(#"public="x""#).isPublic)
        #expect(!CacheControl("immutable=1").immutable)
        #expect(CacheControl(#"public="x", public"#).isPublic)
    }

    @Test func unterminatedQuotesSwallowTheRest() {
        // The quoted string never ends, so the later max-age is part of it.
        let directives = CacheControl(#"ext="abc, max-age=60"#)
        #expect(directives.maxAge == nil)
    }

    @Test(arguments: [("0", 0), ("42", 42), ("007", 7), ("", nil), (" 5", nil), ("5s", nil), ("-5", nil), ("1e3", nil)] as [(String, Int?)])
    func deltaSecondsAreDigitsOnly(_ text: String, _ expected: Int?) {
        #expect(CacheControl.deltaSeconds(text) == expected)
    }
}
