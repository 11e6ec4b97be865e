import Testing
@testable import Warmer

/// The board on the screen: each frame over the last one, and a message
/// (a log line) printed above the board, which is then drawn again whole.
@Suite struct BoardScreenTests {
    static func up(_ rows: Int) -> String { "\r\u{1B}[\(rows)A" }
    static let clearLine = "\u{1B}[2K"
    static let clearBelow = "\u{1B}[J"

    @Test func eachFrameIsDrawnOverThePreviousOne() {
        var screen = BoardScreen()
        #expect(screen.draw(["header", "row 1", "row 2"])
            == "\r" + ["header", "row 1", "row 2"].map { Self.clearLine + $0 + "\n" }.joined() + Self.clearBelow)
        // A shorter frame goes back up three rows and clears what is left below it
        #expect(screen.draw(["header", "row 1"])
            == Self.up(3) + ["header", "row 1"].map { Self.clearLine + $0 + "\n" }.joined() + Self.clearBelow)
        #expect(screen.drawnLines == 2)
    }

    @Test func aWarningPrintsAboveTheBoardWhichIsDrawnAgainBelowIt() {
        // Given a board of two lines on the screen
        var screen = BoardScreen()
        _ = screen.draw(["header", "row 1"])

        // When a log line comes
        let output = screen.print("2026-11-25T13:30:00.000Z warning [redis] Redis unavailable, retrying")

        // Then it takes the board's place, and the board follows it, whole
        #expect(output == Self.up(2) + Self.clearBelow
            + "2026-11-25T13:30:00.000Z warning [redis] Redis unavailable, retrying\n"
            + Self.clearLine + "header\n" + Self.clearLine + "row 1\n" + Self.clearBelow)
        // …so the next frame goes back up over the board only, not the warning
        #expect(screen.draw(["header", "row 2"]).hasPrefix(Self.up(2) + Self.clearLine + "header\n"))
    }

    @Test func aWarningBeforeTheFirstFramePrintsAtTheCursor() {
        var screen = BoardScreen()
        #expect(screen.print("first\n") == "\r" + Self.clearBelow + "first\n" + Self.clearBelow)
        #expect(screen.drawnLines == 0)
    }
}
