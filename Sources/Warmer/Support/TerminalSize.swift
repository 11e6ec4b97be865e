import Foundation

/// The size of the terminal standard output is on, in character cells.
struct TerminalSize: Sendable, Hashable {
    let columns: Int
    let rows: Int

    /// Used when the terminal does not tell (a pseudo-terminal nobody sized).
    static let fallback = TerminalSize(columns: 80, rows: 24)

    /// The terminal's size now (it changes when the window is resized):
    /// what the terminal reports, else `COLUMNS` and `LINES`, else 80×24.
    static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> TerminalSize {
        var size = winsize()
        // TIOCGWINSZ fills `size`; a plain system call, no library's pointer kept.
        let asked = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size)
        let reported = asked == 0 ? (Int(size.ws_col), Int(size.ws_row)) : (0, 0)
        let columns = reported.0 > 0 ? reported.0 : environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
        let rows = reported.1 > 0 ? reported.1 : environment["LINES"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
        return TerminalSize(columns: columns ?? fallback.columns, rows: rows ?? fallback.rows)
    }
}
