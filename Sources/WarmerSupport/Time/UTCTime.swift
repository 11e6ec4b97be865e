import Foundation

/// An epoch-millisecond time as people read it: ISO 8601 in UTC with
/// milliseconds (`2026-11-25T13:30:00.123Z`), shown beside the number in
/// `warmer status` and `dead list --json`.
package enum UTCTime {
    /// `milliseconds` since the epoch in ISO 8601 UTC; `nil` before the epoch.
    package static func text(milliseconds: Int64) -> String? {
        guard milliseconds >= 0 else { return nil }
        // Whole seconds through the formatter, the milliseconds by hand:
        // a Double of seconds can print .569 for .570.
        let seconds = Date(timeIntervalSince1970: Double(milliseconds / 1000)).formatted(.iso8601)
        return seconds.dropLast() + String(format: ".%03dZ", Int(milliseconds % 1000))
    }
}
