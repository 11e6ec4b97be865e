import Testing
import WarmerSupport

/// `UTCTime`, the one writer of ISO 8601 UTC text: the `…UTC` twins of the
/// JSON outputs, log lines' times and the tables' times.
@Suite struct UTCTimeTests {
    @Test func writesISO8601UTCWithMilliseconds() {
        #expect(UTCTime.text(milliseconds: 5) == "1970-01-01T00:00:00.005Z")
        #expect(UTCTime.text(milliseconds: 1_795_604_400_123) == "2026-11-25T11:00:00.123Z")
        #expect(UTCTime.text(milliseconds: 1_795_613_400_570) == "2026-11-25T13:30:00.570Z")
        #expect(UTCTime.text(milliseconds: 951_868_799_999) == "2000-02-29T23:59:59.999Z")
    }

    @Test func hasNoTextBeforeTheEpoch() {
        #expect(UTCTime.text(milliseconds: -1) == nil)
        #expect(UTCTime.text(milliseconds: .min) == nil)
    }

    @Test func theCurrentTimeHasTheSameForm() {
        #expect(UTCTime.now().wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
    }
}
