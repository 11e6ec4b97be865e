import Foundation
import TestSupport

/// A script of scripts/ run to its end: its exit status and its output
/// (standard output and error, interleaved).
struct ScriptRun: Sendable {
    let status: Int32
    let output: String

    /// Runs `bash SCRIPT ARGUMENTS` (SCRIPT relative to the repository) with
    /// `environment` added, for at most `timeout` (then SIGKILL: the bound
    /// only keeps a hang from stalling the suite).
    static func bash(_ script: String, _ arguments: [String], environment: [String: String] = [:],
                     timeout: Duration) async throws -> ScriptRun {
        let folder = try TestEnvironment.temporaryDirectory("script")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("output.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", TestEnvironment.repositoryRoot.appendingPathComponent(script).path] + arguments
        process.currentDirectoryURL = TestEnvironment.repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        // A file, not a pipe: nothing has to read while the script runs.
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()

        // Polled: waiting must not block a thread of the cooperative pool.
        let exited = await eventually(timeout: timeout, pollingEvery: .milliseconds(200)) { !process.isRunning }
        if !exited {
            kill(process.processIdentifier, SIGKILL)
            _ = await eventually(timeout: .seconds(10), pollingEvery: .milliseconds(200)) { !process.isRunning }
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard exited else { throw TestHarnessError("\(script) did not finish within \(timeout); killed it. Output:\n\(text)") }
        return ScriptRun(status: process.terminationStatus, output: text)
    }
}
