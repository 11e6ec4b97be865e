/// Puts `warmer watch`'s board on a terminal and keeps it whole: each
/// frame is drawn over the previous one in place, and a message (a log
/// line: a Redis outage, an error) is printed above the board, which is
/// then drawn again below it, instead of landing in its middle.
///
/// Pure: each call returns the text to write (with ANSI escape sequences)
/// and remembers what the screen holds, so it is tested without a terminal.
/// The board's lines must fit the terminal's width (`ProgressBoard` cuts
/// them): the cursor goes back up one row per line.
struct BoardScreen {
    /// Rows the board takes on the screen now, above the cursor.
    private(set) var drawnLines = 0
    /// The board last drawn, drawn again under each message.
    private(set) var frame: [String] = []

    /// Draws `lines` over the board on the screen.
    mutating func draw(_ lines: [String]) -> String {
        frame = lines
        return Self.up(drawnLines) + drawFrame()
    }

    /// Prints `message` (one line or more) where the board starts, then
    /// draws the board again below it.
    mutating func print(_ message: String) -> String {
        var text = Self.up(drawnLines) + Self.clearBelow
        text += message.hasSuffix("\n") ? message : message + "\n"
        return text + drawFrame()
    }

    /// The frame from the cursor down, leaving the cursor below it and
    /// nothing of a longer board below that.
    private mutating func drawFrame() -> String {
        drawnLines = frame.count
        return frame.map { Self.clearLine + $0 + "\n" }.joined() + Self.clearBelow
    }

    /// To the start of the line `rows` rows up.
    private static func up(_ rows: Int) -> String {
        rows > 0 ? "\r\u{1B}[\(rows)A" : "\r"
    }

    private static let clearLine = "\u{1B}[2K"
    private static let clearBelow = "\u{1B}[J"
}
