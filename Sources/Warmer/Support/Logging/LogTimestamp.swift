import Foundation

/// The time of a log line: ISO 8601 in UTC with milliseconds,
/// `2026-11-25T11:00:00.123Z`, from the system clock, without a formatter.
enum LogTimestamp {
    /// The current time.
    static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return format(seconds: time.tv_sec, milliseconds: Int(time.tv_nsec / 1_000_000))
    }

    /// `seconds` since the epoch plus `milliseconds`, as UTC.
    static func format(seconds: Int, milliseconds: Int) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = ""
        text.reserveCapacity(24)
        append(Int(parts.tm_year) + 1900, digits: 4, to: &text)
        text += "-"
        append(Int(parts.tm_mon) + 1, digits: 2, to: &text)
        text += "-"
        append(Int(parts.tm_mday), digits: 2, to: &text)
        text += "T"
        append(Int(parts.tm_hour), digits: 2, to: &text)
        text += ":"
        append(Int(parts.tm_min), digits: 2, to: &text)
        text += ":"
        append(Int(parts.tm_sec), digits: 2, to: &text)
        text += "."
        append(milliseconds, digits: 3, to: &text)
        text += "Z"
        return text
    }

    private static func append(_ value: Int, digits: Int, to text: inout String) {
        let decimal = String(value)
        if decimal.count < digits { text += String(repeating: "0", count: digits - decimal.count) }
        text += decimal
    }
}
