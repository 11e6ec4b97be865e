import Foundation
import Synchronization

/// `warmer watch`'s board on the terminal of standard output, safe from any
/// task: the watch loop draws frames, and log lines (routed here while the
/// board is up: `LogLineWriter(divertingTo:)`) print above it. One lock
/// orders the writes, so a log line never lands inside a frame.
final class TerminalBoard: Sendable {
    private let screen = Mutex(BoardScreen())

    /// Draws `model` over the board, sized to the terminal now.
    func draw(_ model: BoardModel) {
        let size = TerminalSize.current()
        let lines = ProgressBoard.lines(model, width: size.columns, height: size.rows)
        screen.withLock { screen in Console.write(screen.draw(lines)) }
    }

    /// Prints `message` above the board, then draws the board again.
    func print(_ message: String) {
        screen.withLock { screen in Console.write(screen.print(message)) }
    }
}
