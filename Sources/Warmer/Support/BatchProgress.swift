import Scheduler

/// One batch's line of `warmer watch`'s board: its counters and its current
/// rate, from which the time left follows.
struct BatchProgress: Sendable, Hashable {
    let id: String
    let total: Int
    let completed: Int
    let failed: Int
    let dead: Int
    let cancelled: Int
    let isFinished: Bool
    /// Jobs ended per second lately (`ProgressRates`); `nil` while unknown.
    let rate: Double?

    init(id: String, total: Int, completed: Int = 0, failed: Int = 0, dead: Int = 0, cancelled: Int = 0,
         isFinished: Bool = false, rate: Double? = nil) {
        self.id = id
        self.total = total
        self.completed = completed
        self.failed = failed
        self.dead = dead
        self.cancelled = cancelled
        self.isFinished = isFinished
        self.rate = rate
    }

    init(_ status: BatchStatus, rate: Double?) {
        self.init(id: status.id, total: status.total, completed: status.completed, failed: status.failed,
                  dead: status.dead, cancelled: status.cancelled, isFinished: status.isFinished, rate: rate)
    }

    /// Jobs that ended, in any way (saturating: the counters are whatever the batch hash holds).
    var ended: Int {
        [completed, failed, dead, cancelled].reduce(0) { sum, count in
            let (result, overflow) = sum.addingReportingOverflow(count)
            return overflow ? (count < 0 ? .min : .max) : result
        }
    }

    /// The time left at the current rate: the jobs not yet ended over the
    /// rate. `nil` when finished, or when the rate is unknown or zero.
    var timeLeft: Duration? {
        guard !isFinished, let rate, rate > 0, rate.isFinite else { return nil }
        let remaining = max(0, Double(total) - Double(ended))
        let seconds = remaining / rate
        guard seconds < 1e9 else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
