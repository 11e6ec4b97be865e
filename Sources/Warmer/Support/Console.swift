import Foundation

/// Unbuffered writes to standard output, safe from any task.
enum Console {
    /// Writes `text` as is (add the newline yourself).
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

/// Whether standard output is an interactive terminal.
var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
