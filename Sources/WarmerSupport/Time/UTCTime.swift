import Foundation

/// An epoch-millisecond time as people read it: ISO 8601 in UTC with
/// milliseconds (`2026-11-25T13:30:00.123Z`). The one writer of that form:
/// the `…UTC` twins of `warmer status`, `dead list --json` and the HTTP API,
/// the times of log lines, and the times of `warmer batches` and
/// `warmer workers` tables.
package enum UTCTime {
    /// `milliseconds` since the epoch in ISO 8601 UTC; `nil` before the epoch.
    ///
    /// Written by hand from `gmtime_r`, without a formatter (it runs for
    /// every log line) and without a `Double` (which can print .569 for .570).
    package static func text(milliseconds: Int64) -> String? {
        guard milliseconds >= 0 else { return nil }
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return nil }
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
        append(Int(milliseconds % 1000), digits: 3, to: &text)
        text += "Z"
        return text
    }

    /// The current time of the system clock (`CLOCK_REALTIME`) in ISO 8601 UTC.
    package static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let milliseconds = Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec / 1_000_000)
        return text(milliseconds: milliseconds) ?? "1970-01-01T00:00:00.000Z"
    }

    /// `value` in decimal, zero-padded on the left to `digits` digits.
    private static func append(_ value: Int, digits: Int, to text: inout String) {
        let decimal = String(value)
        if decimal.count < digits { text += String(repeating: "0", count: digits - decimal.count) }
        text += decimal
    }
}
