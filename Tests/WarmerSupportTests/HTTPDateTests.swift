import Foundation
import Testing
import WarmerSupport

/// HTTP-date (RFC 9110 §5.6.7): the three formats in, IMF-fixdate out.
@Suite("HTTPDate")
struct HTTPDateTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example.
    static let example = Date(timeIntervalSince1970: 784_111_777)
    /// A fixed "now" for the two-digit-year rule: 2025-06-01 00:00:00 GMT.
    static let now = Date(timeIntervalSince1970: 1_748_736_000)

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func parsesAllThreeDateFormats(_ text: String) {
        #expect(HTTPDate.parse(text, relativeTo: Self.now) == Self.example)
    }

    @Test(arguments: [
        "sun, 06 nov 1994 08:49:37 gmt", "Sun,  06 Nov 1994  08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
        " Sun, 06 Nov 1994 08:49:37 GMT ", "SUNDAY, 06-NOV-94 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun Nov 06 08:49:37 1994", "Mon, 06 Nov 1994 08:49:37 GMT",
    ])
    func toleratesCaseSpacingAndOtherHarmlessVariations(_ text: String) {
        #expect(HTTPDate.parse(text, relativeTo: Self.now) == Self.example)
    }

    @Test(arguments: [
        "", "0", "-1", "tomorrow", "1994-11-06T08:49:37Z",
        "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37 +0000", "Sun, 06 Nov 1994 08:49:37",
        "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 01994 08:49:37 GMT", "Sun, 006 Nov 1994 08:49:37 GMT",
        "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Nov 1994 08:49:61 GMT",
        "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 08:49:37 GMT x",
        "Sun 06 Nov 1994 08:49:37 GMT", "Funday, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 -8:49:37 GMT",
        "Sunday, 06-Nov-4 08:49:37 GMT", "Sunday, 06-Nov 08:49:37 GMT", "Sun, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 94", "Sun Nov 31 08:49:37 1994",
    ])
    func rejectsInvalidDates(_ text: String) {
        #expect(HTTPDate.parse(text, relativeTo: Self.now) == nil)
    }

    @Test func checksLeapYears() {
        #expect(HTTPDate.parse("Thu, 29 Feb 1996 00:00:00 GMT") != nil)
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") != nil)
        #expect(HTTPDate.parse("Thu, 29 Feb 1900 00:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Fri, 29 Feb 1995 00:00:00 GMT") == nil)
    }

    @Test func leapSecondRollsIntoTheNextMinute() {
        #expect(HTTPDate.parse("Sat, 31 Dec 2016 23:59:60 GMT") == HTTPDate.parse("Sun, 01 Jan 2017 00:00:00 GMT"))
    }

    @Test(arguments: [(94, 1994), (25, 2025), (75, 2075), (76, 1976), (0, 2000), (99, 1999)])
    func twoDigitYearsMoreThanFiftyYearsAheadAreInThePast(_ twoDigits: Int, _ year: Int) throws {
        #expect(HTTPDate.resolveTwoDigitYear(twoDigits, now: Self.now) == year)
        let text = "Sunday, 01-Jan-\(twoDigits < 10 ? "0" : "")\(twoDigits) 00:00:00 GMT"
        let parsed = try #require(HTTPDate.parse(text, relativeTo: Self.now))
        #expect(parsed == Date(timeIntervalSince1970: TimeInterval(HTTPDate.daysFromCivil(year: year, month: 1, day: 1) * 86_400)))
    }

    @Test func twoDigitYearsNearTheEndOfACenturyMayBeInTheNext() {
        let late2099 = Date(timeIntervalSince1970: TimeInterval(HTTPDate.daysFromCivil(year: 2099, month: 6, day: 1) * 86_400))
        #expect(HTTPDate.resolveTwoDigitYear(0, now: late2099) == 2100)
        #expect(HTTPDate.resolveTwoDigitYear(60, now: late2099) == 2060)
    }

    @Test(arguments: [
        (784_111_777.0, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (784_111_777.9, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_709_164_800, "Thu, 29 Feb 2024 00:00:00 GMT"),
        (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
        (-2_208_988_800, "Mon, 01 Jan 1900 00:00:00 GMT"),
    ])
    func formatsIMFFixdate(_ seconds: TimeInterval, _ text: String) {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test func formatClampsDatesWithoutAFourDigitYear() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1e15)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1e15)).hasSuffix(" Jan 0000 00:00:00 GMT"))
    }

    @Test func formattedDatesParseBackToTheSameSecond() {
        // Every 7 days and 12 345 s from 1900 to 2100: all weekdays, months and leap years.
        let dates = stride(from: -2_208_988_800, to: 4_102_444_800, by: 7 * 86_400 + 12_345).map {
            Date(timeIntervalSince1970: TimeInterval($0))
        }
        let wrong = dates.filter { HTTPDate.parse(HTTPDate.format($0), relativeTo: Self.now) != $0 }
        #expect(dates.count > 10_000)
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    @Test func calendarArithmeticAgreesWithKnownDays() {
        #expect(HTTPDate.daysFromCivil(year: 1970, month: 1, day: 1) == 0)
        #expect(HTTPDate.daysFromCivil(year: 2000, month: 3, day: 1) == 11_017)
        #expect(HTTPDate.daysFromCivil(year: 1969, month: 12, day: 31) == -1)
        #expect(HTTPDate.civilFromDays(11_016) == (2000, 2, 29))
        #expect(HTTPDate.civilFromDays(-719_528) == (0, 1, 1))
    }
}
