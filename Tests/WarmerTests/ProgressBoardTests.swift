@testable import Scheduler
import Testing
@testable import Warmer

/// `warmer watch`'s board as text: columns that line up whatever the ids,
/// lines that fit the terminal, the rate and the time left as shown.
@Suite struct ProgressBoardTests {
    static let statistics = QueueStatistics(queue: "images", queued: 1200, active: 64, delayed: 3, dead: 1, intake: 0, staged: 0,
                                            isPaused: false, workers: 2)

    @Test(arguments: [(0, 10, 0), (5, 10, 15), (10, 10, 30), (11, 10, 30), (-5, 10, 0), (Int.max, 7, 30), (3, 0, 30)])
    func theBarStaysWithinItsWidth(_ ended: Int, _ total: Int, _ cells: Int) {
        // Negative or huge counters once trapped (a negative repeat count, an overflowing product).
        #expect(ProgressBoard.filledCells(ended: ended, total: total, width: 30) == cells)
    }

    @Test(arguments: [5, 128])
    func columnsLineUpWhateverTheBatchIdsLength(longest: Int) throws {
        // Given batches with a 3-character id and one of `longest` characters
        let long = String(repeating: "a1", count: 64).prefix(longest)
        let model = BoardModel(statistics: Self.statistics, batches: [
            BatchProgress(id: "abc", total: 1000, completed: 298, failed: 2, rate: 14),
            BatchProgress(id: String(long), total: 7, completed: 7, isFinished: true),
            BatchProgress(id: "x-9", total: 100_000, completed: 5, dead: 1, cancelled: 2, rate: nil),
        ])

        // When drawn on a terminal wide enough for every id
        let lines = ProgressBoard.lines(model, width: 250, height: 40)

        // Then the header comes first, then the titles and one line per batch…
        #expect(lines.count == 5, "\(lines)")
        #expect(lines[0] == "queue images  queued 1200  active 64  delayed 3  dead 1  workers 2")
        let table = Array(lines.dropFirst())
        #expect(table[2].hasPrefix(String(long) + "  ["), "the id is shown whole:\n\(table.joined(separator: "\n"))")
        // …each title's right edge (a right-aligned column) is each row's
        for title in ["ENDED", "COMPLETED", "FAILED", "DEAD", "CANCELLED", "RATE", "ETA"] {
            let end = try #require(table[0].range(of: title)).upperBound.utf16Offset(in: table[0])
            for row in table.dropFirst() {
                let cells = Array(row)
                #expect(cells.count >= end && cells[end - 1] != " " && (end == cells.count || cells[end] == " "),
                        "column \(title) does not end at \(end):\n\(table.joined(separator: "\n"))")
            }
        }
        // …every line is as long (the bars start and end at the same place)
        let widths: Set<Int> = Set(table.map(\.count))
        #expect(widths.count == 1, "\(table.joined(separator: "\n"))")
        let barStarts: Set<Int?> = Set(table.dropFirst().map { (row: String) -> Int? in Array(row).firstIndex(of: "[") })
        #expect(barStarts.count == 1)
        // …and the rows read as expected
        #expect(table[1].contains("300/1000") && table[1].hasSuffix("14/s   50s"), "\(table[1])")
        #expect(table[2].contains("7/7") && table[2].hasSuffix("—  done"), "\(table[2])")
        #expect(table[3].contains("8/100000") && table[3].hasSuffix("—     —"), "\(table[3])")
    }

    @Test func aLongIdIsShortenedInTheMiddleToFitANarrowTerminal() {
        // Given a 128-character id on an 80-column terminal
        let id = String(repeating: "0123456789abcdef", count: 8)
        let model = BoardModel(statistics: Self.statistics, batches: [
            BatchProgress(id: id, total: 10, completed: 4, rate: 2),
            BatchProgress(id: "short", total: 10, completed: 10, isFinished: true),
        ])

        let lines = ProgressBoard.lines(model, width: 80, height: 24)

        // Then no line is wider than the terminal (a wrapped line breaks the
        // redraw), the columns still line up, and the id keeps its two ends
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines.joined(separator: "\n"))")
        let widths: Set<Int> = Set(lines.dropFirst().map(\.count))
        #expect(widths.count == 1, "\(lines.joined(separator: "\n"))")
        let shown = String(lines[2].prefix { $0 != " " })
        #expect(shown.hasPrefix("0123") && shown.hasSuffix("cdef"), "\(shown)")
        #expect(shown.contains("…") && shown.count < id.count, "\(shown)")
        #expect(lines[2].hasSuffix("2.0/s    3s"), "\(lines[2])")
    }

    @Test func theBoardKeepsTheNewestBatchesThatFitTheTerminalsHeight() {
        let batches = (1...30).map { BatchProgress(id: "batch-\($0)", total: 1) }
        let lines = ProgressBoard.lines(BoardModel(statistics: Self.statistics, batches: batches), width: 100, height: 10)
        // A header, titles, 6 batches and a line for the others: the cursor's row stays free
        #expect(lines.count == 9, "\(lines.joined(separator: "\n"))")
        #expect(lines[2].hasPrefix("batch-25 ") && lines[7].hasPrefix("batch-30 "), "\(lines.joined(separator: "\n"))")
        #expect(lines[8] == "… 24 earlier batches not shown")
    }

    @Test func withoutBatchesTheBoardIsTheHeaderAlone() {
        #expect(ProgressBoard.lines(BoardModel(statistics: Self.statistics, batches: []), width: 120, height: 24)
            == ["queue images  queued 1200  active 64  delayed 3  dead 1  workers 2"])
        #expect(ProgressBoard.lines(BoardModel(statistics: nil, batches: []), width: 120, height: 24).isEmpty)
    }

    @Test(arguments: [
        (nil, "—"), (0.0, "0.0/s"), (0.26, "0.3/s"), (9.94, "9.9/s"), (12.6, "13/s"), (1234.4, "1234/s"), (Double.nan, "—"),
    ] as [(Double?, String)])
    func theRateIsShownPerSecond(_ rate: Double?, _ text: String) {
        #expect(ProgressBoard.rateText(rate) == text)
    }

    @Test(arguments: [
        (nil, "—"), (Duration.zero, "0s"), (.milliseconds(41_200), "42s"), (.seconds(185), "3m05s"), (.seconds(7500), "2h05m"),
    ] as [(Duration?, String)])
    func theTimeLeftIsShownInHoursMinutesAndSeconds(_ duration: Duration?, _ text: String) {
        #expect(ProgressBoard.timeText(duration) == text)
    }

    @Test func theTimeLeftIsWhatRemainsOverTheCurrentRate() {
        // 1000 jobs, 300 ended, at 12.5 jobs/s: 56 s left
        #expect(BatchProgress(id: "b", total: 1000, completed: 290, failed: 10, rate: 12.5).timeLeft == .seconds(56))
        // Unknown while the rate is unknown or zero, and once finished
        #expect(BatchProgress(id: "b", total: 1000, completed: 290, rate: nil).timeLeft == nil)
        #expect(BatchProgress(id: "b", total: 1000, completed: 290, rate: 0).timeLeft == nil)
        #expect(BatchProgress(id: "b", total: 10, completed: 10, isFinished: true, rate: 3).timeLeft == nil)
        // Counters beyond the total leave nothing to do, not a negative time
        #expect(BatchProgress(id: "b", total: 10, completed: 12, rate: 1).timeLeft == .zero)
    }
}
