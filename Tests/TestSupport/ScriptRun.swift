import Foundation

/// A script of scripts/ run to its end: its exit status and its output
/// (standard output and error, interleaved). Started through
/// `ChildProcess`, like every process a test starts (see its comment on
/// Foundation's `Process`).
public struct ScriptRun: Sendable {
    /// The exit status a script gives when it cannot run here (`SKIPPED: why`).
    public static let skippedStatus: Int32 = 77

    /// The script's exit status (-1 if it ended by a signal).
    public let status: Int32
    /// Its standard output and error, interleaved.
    public let output: String

    /// A script that did not end within its time limit (it was killed).
    public struct Timeout: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `bash SCRIPT ARGUMENTS` (SCRIPT relative to the repository)
    /// with `environment` added, for at most `timeout` (then SIGKILL: the
    /// bound only keeps a hang from stalling the suite).
    public static func bash(_ script: String, _ arguments: [String], environment: [String: String] = [:],
                            timeout: Duration) async throws -> ScriptRun {
        try await run("bash", script, arguments, environment: environment, timeout: timeout)
    }

    /// Runs `python3 SCRIPT ARGUMENTS` (SCRIPT relative to the repository),
    /// for at most `timeout` (then SIGKILL).
    public static func python(_ script: String, _ arguments: [String], timeout: Duration) async throws -> ScriptRun {
        try await run("python3", script, arguments, environment: [:], timeout: timeout)
    }

    /// Runs `INTERPRETER SCRIPT ARGUMENTS` from the repository's root.
    private static func run(_ interpreter: String, _ script: String, _ arguments: [String],
                            environment: [String: String], timeout: Duration) async throws -> ScriptRun {
        let folder = try TestEnvironment.temporaryDirectory("script")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("output.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }

        // A file, not a pipe: nothing has to read while the script runs.
        let process = try ChildProcess(
            "/usr/bin/env", [interpreter, TestEnvironment.repositoryRoot.appendingPathComponent(script).path] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
            currentDirectory: TestEnvironment.repositoryRoot, standardOutput: .file(output), standardError: .file(output)
        )

        // Polled: waiting must not block a thread of the cooperative pool.
        let exited = await eventually(timeout: timeout, pollingEvery: .milliseconds(200)) { !process.isRunning }
        if !exited {
            process.send(SIGKILL)
            _ = await eventually(timeout: .seconds(10), pollingEvery: .milliseconds(200)) { !process.isRunning }
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard exited else { throw Timeout(description: "\(script) did not finish within \(timeout); killed it. Output:\n\(text)") }
        return ScriptRun(status: process.exit?.status ?? -1, output: text)
    }
}
