import WarmerSupport

/// Each batch's current rate: jobs ended per second over a sliding window
/// (the last 10 s by default), not the average since it was first seen, so
/// the rate and the time left follow a batch that speeds up or stalls.
///
/// The caller gives the time of each sample (`record(_:of:at:)`), so the
/// rate is a pure function of the samples and tests need no clock.
struct ProgressRates {
    /// One reading of a batch's `ended` counter.
    private struct Sample {
        let time: ContinuousClock.Instant
        let ended: Int
    }

    /// How far back the rate looks.
    let window: Duration
    /// The shortest span of samples that gives a rate: less is noise.
    let minimumSpan: Duration
    private var samples: [String: [Sample]] = [:]

    init(window: Duration = .seconds(10), minimumSpan: Duration = .seconds(1)) {
        self.window = window
        self.minimumSpan = minimumSpan
    }

    /// Notes that `batch` had `ended` jobs ended at `time`; forgets samples
    /// that left the window. A counter that went down (dead letters retried
    /// reopen a batch) starts the batch's window again.
    mutating func record(_ ended: Int, of batch: String, at time: ContinuousClock.Instant) {
        var kept = samples[batch] ?? []
        if let last = kept.last, ended < last.ended || time < last.time { kept.removeAll() }
        kept.append(Sample(time: time, ended: ended))
        // The oldest sample kept is the last one at or before the window's start.
        let start = time - window
        if let firstInside = kept.firstIndex(where: { $0.time > start }), firstInside > 1 {
            kept.removeFirst(firstInside - 1)
        }
        samples[batch] = kept
    }

    /// Jobs ended per second over the window, up to the latest sample;
    /// `nil` while the samples span less than `minimumSpan`.
    func rate(of batch: String) -> Double? {
        guard let kept = samples[batch], let last = kept.last else { return nil }
        let start = last.time - window
        // From the window's start, or the last sample before it when none falls on it.
        let first = kept.last { $0.time <= start } ?? kept[0]
        let span = last.time - first.time
        guard span >= minimumSpan else { return nil }
        return (Double(last.ended) - Double(first.ended)) / span.seconds
    }

    /// Forgets every batch but `batches` (those that left the board).
    mutating func keep(only batches: Set<String>) {
        samples = samples.filter { batches.contains($0.key) }
    }
}
