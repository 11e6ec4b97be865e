import Foundation
import Synchronization
import TestSupport

/// `warmer ARGUMENTS` run on a pseudo-terminal (util-linux `script`), so it
/// draws what it draws for a person (`warmer watch`'s board), with its
/// output collected as it arrives. Stopped with `stop()` or when released.
final class TerminalSession: Sendable {
    private let process: ChildProcess
    private let collected = Mutex(Data())
    /// Whether the terminal's output has ended (`warmer` exited and all it drew was read).
    private let outputEnded = Mutex(false)

    init(_ arguments: [String]) throws {
        let binary = try WarmerProcess.binary().path
        let command = ([binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        process = try ChildProcess("/usr/bin/script", ["--quiet", "--flush", "--return", "--command", command, "/dev/null"],
                                   standardOutput: .pipe)
        guard let output = process.standardOutput else { throw HarnessError("script's output is not a pipe") }
        let reader = Thread { [self, file = output] in
            while true {
                let chunk = file.availableData  // blocks until data or end of file
                if chunk.isEmpty { return outputEnded.withLock { $0 = true } }
                collected.withLock { $0.append(chunk) }
            }
        }
        reader.name = "terminal-session-reader"
        reader.start()
    }

    /// Everything drawn so far, escape sequences included.
    var output: String { String(decoding: collected.withLock { $0 }, as: UTF8.self) }

    /// The lines drawn so far, without escape sequences.
    var lines: [String] {
        output.replacing(try! Regex("\u{1B}\\[[0-9;]*[A-Za-z]"), with: "")
            .split(whereSeparator: \.isNewline).map(String.init)
    }

    /// `warmer`'s exit status once it exits within `timeout` (`script
    /// --return` passes it on), or `nil` while it still runs.
    func exitStatus(within timeout: Duration) async -> Int32? {
        let exited = await eventually(timeout: timeout) { !process.isRunning && outputEnded.withLock { $0 } }
        return exited ? process.exit?.status : nil
    }

    /// Ends the session: the terminal closes and takes `warmer` with it.
    func stop() async {
        guard process.isRunning else { return }
        process.send(SIGTERM)
        _ = await eventually(timeout: .seconds(5)) { !process.isRunning }
        process.send(SIGKILL)
    }

    deinit {
        process.send(SIGKILL)
    }
}
