import Foundation

/// A command a test ran exited with an error.
public struct CommandFailed: Error, CustomStringConvertible {
    /// The command, as the test ran it.
    public let command: String
    /// Its exit status (-1 when it could not be run).
    public let status: Int32
    /// What it printed, or why it could not be run.
    public let output: String

    /// The failure of `command`, which exited with `status` and printed `output`.
    public init(command: String, status: Int32, output: String) {
        self.command = command
        self.status = status
        self.output = output
    }

    /// The command, its status and its output, for the test log.
    public var description: String { "`\(command)` exited \(status): \(output)" }
}
