import Foundation
import Scheduler

/// Live progress bars on a terminal, redrawn in place: a header line with
/// the queue's totals, then one line per batch.
struct ProgressBoard {
    private var lines = 0
    private var firstSeen: [String: (time: ContinuousClock.Instant, ended: Int)] = [:]

    /// Redraws the header (when there is one) and one line per status.
    mutating func draw(header: String? = nil, _ statuses: [BatchStatus]) {
        var output = lines > 0 ? "\u{1B}[\(lines)A" : ""
        let body = (header.map { [$0] } ?? []) + statuses.map { line(for: $0) }
        for text in body {
            output += "\u{1B}[2K" + text + "\n"
        }
        // Lines left over from a longer board are cleared.
        for _ in body.count..<max(body.count, lines) { output += "\u{1B}[2K\n" }
        lines = max(body.count, lines)
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    /// The header line: `queue NAME  queued N  active N  delayed N  dead N
    /// intake N  workers N`, then `  paused` while the queue is paused.
    static func header(_ statistics: QueueStatistics) -> String {
        var text = "queue \(statistics.queue)  queued \(statistics.queued)  active \(statistics.active)"
            + "  delayed \(statistics.delayed)  dead \(statistics.dead)"
        if statistics.intake > 0 { text += "  intake \(statistics.intake)" }
        text += "  workers \(statistics.workers)"
        if statistics.isPaused { text += "  paused" }
        return text
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
