import Foundation
import Testing
import WarmerSupport

@Suite struct DurationConversionTests {
    @Test func secondsKeepTheFraction() {
        #expect(Duration.milliseconds(1_500).seconds == 1.5)
        #expect(Duration.zero.seconds == 0)
        #expect(Duration.milliseconds(-250).seconds == -0.25)
    }

    @Test func wholeUnitsTruncateAndSaturate() {
        #expect(Duration.microseconds(2_999).milliseconds == 2)
        #expect(Duration.seconds(3).milliseconds == 3_000)
        #expect(Duration.seconds(Int64.max).milliseconds == .max)
        #expect(Duration.seconds(Int64.min).milliseconds == .min)
        #expect(Duration.milliseconds(1).nanoseconds == 1_000_000)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
    }

    @Test func timeValueSplitsSecondsAndMicroseconds() {
        let value = Duration.milliseconds(2_750).timeValue
        #expect(value.tv_sec == 2)
        #expect(value.tv_usec == 750_000)
    }
}
