import Foundation
import Synchronization
import TestSupport

/// A failure of the harness itself: a process that would not exit, a batch
/// that never finished. Thrown so the test stops with a clear message.
struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What a finished `warmer` process printed and returned.
struct CommandResult: Sendable, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    /// Whether it exited (as opposed to being killed by a signal).
    let exited: Bool
    let standardOutput: String
    let standardError: String

    /// Standard output split into non-empty lines.
    var outputLines: [String] {
        standardOutput.split(separator: "\n").map(String.init)
    }

    var description: String {
        "`warmer \(arguments.joined(separator: " "))` \(exited ? "exited" : "killed by signal") \(status)\n"
            + "stdout:\n\(standardOutput)\nstderr:\n\(standardError)"
    }
}

/// A `warmer` process whose standard output is collected as it arrives.
///
/// Unlike `WarmerProcess.waitForExit()`, waiting here never blocks a thread of
/// Swift's cooperative pool (the pool is as small as the machine, and many
/// tests run at once): a dedicated thread reads the output with blocking reads
/// and the exit is polled. (Not `FileHandle.readabilityHandler`: on Linux it
/// sometimes never reports the end of a pipe, swift-corelibs-foundation#3275.)
final class CollectedProcess: Sendable {
    let arguments: [String]
    private let handle: WarmerProcess
    private let collected = OutputBuffer()

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        self.arguments = arguments
        handle = try WarmerProcess(arguments, environment: environment)
        guard let output = handle.process.standardOutput else {
            throw HarnessError("warmer's standard output is not a pipe")
        }
        let reader = Thread { [collected, file = output] in
            while true {
                let chunk = file.availableData  // blocks until data or end of file
                collected.append(chunk)
                if chunk.isEmpty { return }
            }
        }
        reader.name = "warmer-output-reader"
        reader.start()
    }

    var processIdentifier: Int32 { handle.process.processIdentifier }
    var isRunning: Bool { handle.process.isRunning }
    var standardErrorSoFar: String { handle.standardErrorSoFar }
    var standardOutputSoFar: String { String(decoding: collected.data, as: UTF8.self) }

    func send(_ signal: Int32) { handle.send(signal) }

    /// Waits up to `timeout` for the process to exit and its output to end.
    /// Returns `nil` if it is still running then (the caller decides what to do).
    func waitForExit(timeout: Duration) async -> CommandResult? {
        let ended = await eventually(timeout: timeout, pollingEvery: .milliseconds(20)) {
            !handle.process.isRunning && collected.isComplete
        }
        guard ended else { return nil }
        return CommandResult(
            arguments: arguments,
            status: handle.process.exit?.status ?? -1,
            exited: handle.process.exit?.exited ?? false,
            standardOutput: standardOutputSoFar,
            standardError: handle.standardErrorSoFar
        )
    }

    /// Waits for the exit; kills the process and throws if it takes longer than `timeout`.
    func result(timeout: Duration) async throws -> CommandResult {
        if let result = await waitForExit(timeout: timeout) { return result }
        let state = isRunning ? "was still running" : "exited but its output did not end"
        let output = standardOutputSoFar, errors = standardErrorSoFar
        send(SIGKILL)
        _ = await waitForExit(timeout: .seconds(5))
        throw HarnessError("""
            `warmer \(arguments.joined(separator: " "))` did not finish within \(timeout) (it \(state)); killed it.
            stdout:
            \(output)
            stderr:
            \(errors)
            """)
    }
}

/// Bytes read from a pipe so far, and whether it reached its end.
private final class OutputBuffer: Sendable {
    private let state = Mutex<(data: Data, isComplete: Bool)>((Data(), false))

    /// Appends a chunk; an empty chunk marks the end of the output.
    func append(_ chunk: Data) {
        state.withLock { state in
            if chunk.isEmpty { state.isComplete = true } else { state.data.append(chunk) }
        }
    }

    var data: Data { state.withLock { $0.data } }
    var isComplete: Bool { state.withLock { $0.isComplete } }
}

/// Runs `warmer ARGUMENTS` to completion (at most `timeout`) and returns what it printed.
func warmer(
    _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(30)
) async throws -> CommandResult {
    try await CollectedProcess(arguments, environment: environment).result(timeout: timeout)
}
