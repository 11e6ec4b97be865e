import Foundation
import Scheduler

/// Live progress bars on a terminal, one line per batch, redrawn in place.
struct ProgressBoard {
    private var lines = 0
    private var firstSeen: [String: (time: ContinuousClock.Instant, ended: Int)] = [:]

    /// Redraws one line per status.
    mutating func draw(_ statuses: [BatchStatus]) {
        var output = lines > 0 ? "\u{1B}[\(lines)A" : ""
        for status in statuses {
            output += "\u{1B}[2K" + line(for: status) + "\n"
        }
        lines = statuses.count
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    private mutating func line(for status: BatchStatus) -> String {
        let now = ContinuousClock.now
        let start = firstSeen[status.id] ?? (now, status.ended)
        firstSeen[status.id] = start
        let elapsed = (now - start.time).seconds
        let rate = elapsed > 0.5 ? (Double(status.ended) - Double(start.ended)) / elapsed : 0
        let width = 30
        let filled = Self.filledCells(ended: status.ended, total: status.total, width: width)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        var text = "\(status.id.prefix(16))  [\(bar)] \(status.ended)/\(status.total)  done \(status.completed)  failed \(status.failed)"
        if status.dead > 0 { text += "  dead \(status.dead)" }
        if status.cancelled > 0 { text += "  cancelled \(status.cancelled)" }
        text += status.isFinished ? "  finished" : String(format: "  %.1f/s", rate)
        return text
    }

    /// How many of `width` cells show `ended` of `total`: 0…`width`, whatever
    /// the counters in the batch hash say (negative, or beyond the total).
    static func filledCells(ended: Int, total: Int, width: Int) -> Int {
        guard total > 0 else { return width }
        let fraction = min(1, max(0, Double(ended) / Double(total)))
        return Int((fraction * Double(width)).rounded(.down))
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
