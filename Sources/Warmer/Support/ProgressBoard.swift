import Foundation
import Scheduler

/// What `warmer watch` draws on a terminal, as lines of text: a pure
/// function of a `BoardModel` and the terminal's size, so it is tested
/// without a terminal (`BoardScreen` puts the lines on the screen).
///
/// ```
/// queue default  queued 1200  active 64  delayed 3  dead 1  workers 2
/// BATCH             PROGRESS                             ENDED  COMPLETED  FAILED  RATE   ETA
/// 3f2a9c81d4e6b7a0  [█████████░░░░░░░░░░░░░░░░░░░░░]  300/1000        298       2  14/s   50s
/// nightly-thumbs    [██████████████████████████████]     40/40         40       0     —  done
/// ```
///
/// The header line (when the queue's totals are known) is followed, when
/// batches are followed, by column titles and one line per batch. Columns
/// line up whatever the ids' lengths: the id column is as wide as the
/// longest id, unless that would not fit the terminal, and then ids are
/// shortened in the middle (`3f2a9c81…d4e6b7a0`). `DEAD` and `CANCELLED`
/// appear when a batch shown has some. No line is wider than the terminal
/// (a wrapped line would break the redraw), and the board keeps below its
/// height, showing the newest batches.
enum ProgressBoard {
    /// The widest progress bar, in cells between its brackets.
    static let widestBar = 30
    /// The narrowest progress bar before ids are shortened.
    static let narrowestBar = 10
    /// The narrowest id column (a shortened id keeps at least this much).
    static let narrowestID = 9
    /// Shown for an unknown rate or time left.
    static let unknown = "—"

    /// The board's lines for a terminal `width` columns wide and `height` rows high.
    static func lines(_ model: BoardModel, width: Int, height: Int) -> [String] {
        let width = max(1, width)
        var lines = model.statistics.map { [header($0)] } ?? []
        guard !model.batches.isEmpty else { return lines.map { fitted($0, width) } }

        // The newest batches that fit, with a line saying how many are left out.
        let room = max(1, height - lines.count - 2)  // the titles, and the line the cursor rests on
        var shown = model.batches
        var leftOut = 0
        if shown.count > room {
            let kept = max(1, room - 1)
            leftOut = shown.count - kept
            shown = Array(shown.suffix(kept))
        }
        lines += table(shown, width: width)
        if leftOut > 0 { lines.append("… \(leftOut) earlier \(leftOut == 1 ? "batch" : "batches") not shown") }
        return lines.map { fitted($0, width) }
    }

    /// The header line: `queue NAME  queued N  active N  delayed N  dead N
    /// intake N  workers N`, then `  paused` while the queue is paused.
    static func header(_ statistics: QueueStatistics) -> String {
        var text = "queue \(statistics.queue)  queued \(statistics.queued)  active \(statistics.active)"
            + "  delayed \(statistics.delayed)  dead \(statistics.dead)"
        if statistics.intake > 0 { text += "  intake \(statistics.intake)" }
        if statistics.staged > 0 { text += "  staged \(statistics.staged) URLs" }
        text += "  workers \(statistics.workers)"
        if statistics.isPaused { text += "  paused" }
        return text
    }

    /// `12.5/s` (`125/s` from 10 up), or `—` when unknown.
    static func rateText(_ rate: Double?) -> String {
        guard let rate, rate.isFinite else { return unknown }
        let shown = max(0, rate)
        return shown < 10 ? String(format: "%.1f/s", shown) : String(format: "%.0f/s", shown)
    }

    /// `42s`, `3m05s`, `2h05m` (whole seconds, rounded up), or `—` when unknown.
    static func timeText(_ duration: Duration?) -> String {
        guard let duration else { return unknown }
        let (whole, fraction) = duration.components
        let seconds = max(0, whole + (fraction > 0 ? 1 : 0))
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m" + twoDigits(seconds % 60) + "s" }
        return "\(seconds / 3600)h" + twoDigits(seconds / 60 % 60) + "m"
    }

    /// How many of `width` cells show `ended` of `total`: 0…`width`, whatever
    /// the counters in the batch hash say (negative, or beyond the total).
    static func filledCells(ended: Int, total: Int, width: Int) -> Int {
        guard total > 0 else { return width }
        let fraction = min(1, max(0, Double(ended) / Double(total)))
        return Int((fraction * Double(width)).rounded(.down))
    }

    // MARK: The table

    /// A column right of the bar: its title and each row's text, right-aligned.
    private struct Column {
        let title: String
        let cells: [String]
        var width: Int { cells.reduce(title.count) { max($0, $1.count) } }
    }

    /// The titles and one line per batch.
    private static func table(_ batches: [BatchProgress], width: Int) -> [String] {
        var columns = [
            Column(title: "ENDED", cells: batches.map { "\($0.ended)/\($0.total)" }),
            Column(title: "COMPLETED", cells: batches.map { String($0.completed) }),
            Column(title: "FAILED", cells: batches.map { String($0.failed) }),
        ]
        if batches.contains(where: { $0.dead != 0 }) {
            columns.append(Column(title: "DEAD", cells: batches.map { String($0.dead) }))
        }
        if batches.contains(where: { $0.cancelled != 0 }) {
            columns.append(Column(title: "CANCELLED", cells: batches.map { String($0.cancelled) }))
        }
        columns.append(Column(title: "RATE", cells: batches.map { $0.isFinished ? unknown : rateText($0.rate) }))
        columns.append(Column(title: "ETA", cells: batches.map { $0.isFinished ? "done" : timeText($0.timeLeft) }))

        // What the id and the bar share: the width less the other columns,
        // the brackets and two spaces between columns.
        let others = columns.reduce(0) { $0 + $1.width + 2 }
        let shared = width - others - 2 - 2
        let longestID = batches.reduce("BATCH".count) { max($0, $1.id.count) }
        let bar: Int, idWidth: Int
        if longestID + narrowestBar <= shared {
            (idWidth, bar) = (longestID, min(widestBar, shared - longestID))
        } else {
            (idWidth, bar) = (min(longestID, max(narrowestID, shared - narrowestBar)), narrowestBar)
        }

        var titles = padded("BATCH", idWidth) + "  " + padded("PROGRESS", bar + 2)
        for column in columns { titles += "  " + leftPadded(column.title, column.width) }
        var lines = [titles]
        for (row, batch) in batches.enumerated() {
            let filled = filledCells(ended: batch.ended, total: batch.total, width: bar)
            var line = padded(shortened(batch.id, idWidth), idWidth) + "  "
                + "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: bar - filled) + "]"
            for column in columns { line += "  " + leftPadded(column.cells[row], column.width) }
            lines.append(line)
        }
        return lines
    }

    /// `id`, shortened in the middle to `width` characters when longer.
    static func shortened(_ id: String, _ width: Int) -> String {
        guard id.count > width, width >= 3 else { return String(id.prefix(max(0, width))) }
        let head = (width - 1 + 1) / 2
        return id.prefix(head) + "…" + id.suffix(width - 1 - head)
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private static func leftPadded(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// `line`, cut to `width` characters: a longer line would wrap.
    private static func fitted(_ line: String, _ width: Int) -> String {
        line.count > width ? String(line.prefix(width)) : line
    }
}
