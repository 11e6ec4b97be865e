import Foundation
import TestSupport

/// A script of scripts/ run to its end: its exit status and its output
/// (standard output and error, interleaved).
struct ScriptRun: Sendable {
    /// The exit status a script gives when it cannot run here (`SKIPPED: why`).
    static let skippedStatus: Int32 = 77

    let status: Int32
    let output: String

    /// Runs `python3 SCRIPT ARGUMENTS` (SCRIPT relative to the repository)
    /// from the repository's root, for at most `timeout` (then SIGKILL).
    static func python(_ script: String, _ arguments: [String], timeout: Duration) async throws -> ScriptRun {
        let folder = try TestEnvironment.temporaryDirectory("script")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("output.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }

        // A file, not a pipe: nothing has to read while the script runs.
        let process = try ChildProcess(
            "/usr/bin/env", ["python3", TestEnvironment.repositoryRoot.appendingPathComponent(script).path] + arguments,
            currentDirectory: TestEnvironment.repositoryRoot, standardOutput: .file(output), standardError: .file(output)
        )

        // Polled: waiting must not block a thread of the cooperative pool.
        let exited = await eventually(timeout: timeout, pollingEvery: .milliseconds(200)) { !process.isRunning }
        if !exited {
            process.send(SIGKILL)
            _ = await eventually(timeout: .seconds(10), pollingEvery: .milliseconds(200)) { !process.isRunning }
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard exited else { throw HarnessError("\(script) did not finish within \(timeout); killed it. Output:\n\(text)") }
        return ScriptRun(status: process.exit?.status ?? -1, output: text)
    }
}
