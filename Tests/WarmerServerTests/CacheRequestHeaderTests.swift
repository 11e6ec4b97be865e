import Testing
@testable import WarmerServer

/// How `GET /v1/cache` reads `Range` and `If-None-Match` (RFC 9110), as pure
/// functions of the header and the entry's size or tag.
@Suite struct CacheRequestHeaderTests {
    @Test func singleRangesAreAnsweredAndClampedToTheEnd() {
        #expect(ByteRangeRequest(header: "bytes=0-9", size: 100) == .part(0...9))
        #expect(ByteRangeRequest(header: "bytes=90-500", size: 100) == .part(90...99))
        #expect(ByteRangeRequest(header: "bytes=95-", size: 100) == .part(95...99))
        #expect(ByteRangeRequest(header: "bytes=-10", size: 100) == .part(90...99))
        #expect(ByteRangeRequest(header: "bytes=-1000", size: 100) == .part(0...99))
        #expect(ByteRangeRequest(header: "BYTES= 5 - 6 ", size: 100) == .part(5...6))
    }

    @Test func rangesPastTheEndAreUnsatisfiable() {
        #expect(ByteRangeRequest(header: "bytes=100-", size: 100) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=100-200", size: 100) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=-0", size: 100) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=99999999999999999999999-", size: 100) == .unsatisfiable)
    }

    @Test func otherRangeHeadersAreIgnored() {
        for header in [nil, "bytes=0-1,5-9", "items=0-5", "bytes=9-2", "bytes=a-b", "bytes=", "bytes=-", "bytes=1-2-3"] {
            #expect(ByteRangeRequest(header: header, size: 100) == .whole, "\(header ?? "nil")")
        }
    }

    @Test func ifNoneMatchComparesWeaklyAndMatchesStar() {
        let tag = "\"abc\""
        #expect(EntityTagCondition.matches("\"abc\"", etag: tag))
        #expect(EntityTagCondition.matches("W/\"abc\"", etag: tag))
        #expect(EntityTagCondition.matches("\"x\", \"y\" ,W/\"abc\"", etag: tag))
        #expect(EntityTagCondition.matches("*", etag: tag))
        #expect(!EntityTagCondition.matches("\"abcd\", \"ab\"", etag: tag))
        #expect(!EntityTagCondition.matches("abc", etag: tag))
        #expect(!EntityTagCondition.matches("", etag: tag))
    }
}
