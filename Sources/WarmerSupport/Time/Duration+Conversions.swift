import Foundation

/// The conversions of a `Duration` that Warmer's modules need: to seconds
/// for metrics and JSON, to whole milliseconds for Redis and Dispatch, to
/// nanoseconds for `DispatchTime`, to `timeval` for C APIs.
///
/// The whole-number conversions truncate toward zero and saturate instead
/// of trapping: `.seconds(Int64.max)` ("practically never") is `Int.max`.
extension Duration {
    /// The duration in seconds, as a floating-point number.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, saturating at `Int.min` and `Int.max`.
    public var milliseconds: Int {
        wholeUnits(perSecond: 1000)
    }

    /// The duration in whole nanoseconds, saturating at `Int.min` and `Int.max`.
    public var nanoseconds: Int {
        wholeUnits(perSecond: 1_000_000_000)
    }

    /// The duration as a `timeval` (whole microseconds), for C APIs that
    /// take one (socket and connection timeouts).
    public var timeValue: timeval {
        let (seconds, attoseconds) = components
        return timeval(tv_sec: Int(clamping: seconds), tv_usec: .init(attoseconds / 1_000_000_000_000))
    }

    /// The duration in whole units of `1 / perSecond` s, saturating.
    private func wholeUnits(perSecond: Int64) -> Int {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: perSecond)
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / (1_000_000_000_000_000_000 / perSecond))
        guard !overflow, !overflowAgain else { return seconds < 0 ? .min : .max }
        return Int(total)
    }
}
