import Foundation
import TestSupport

/// The `warmer` executable, run as a separate process as users run it
/// (a `ChildProcess`: see there why not Foundation's `Process`).
final class WarmerProcess: Sendable {
    let process: ChildProcess
    private let errorFile: URL

    /// The built binary: `WARMER_BIN`, else `warmer` beside the test bundle.
    static func binary() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["WARMER_BIN"] {
            return URL(fileURLWithPath: path)
        }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("warmer")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        let fallback = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/warmer")
        guard FileManager.default.isExecutableFile(atPath: fallback.path) else {
            throw CommandFailed(command: "locate warmer", status: -1, output: "build the package first (swift build)")
        }
        return fallback
    }

    /// Starts `warmer ARGUMENTS`, with `stdin` as its input when given.
    init(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws {
        var merged = ProcessInfo.processInfo.environment
        // The SSRF guard refuses loopback by default: allow the test origin's
        // host, as a deployment allows an on-premise origin.
        if merged["WARMER_ALLOW_HOSTS"] == nil, let host = try? TestEnvironment.originURL().host {
            merged["WARMER_ALLOW_HOSTS"] = host
        }
        merged.merge(environment) { _, new in new }
        // Standard error goes to a file so a chatty process never blocks on a full pipe.
        errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("warmer-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let errors = try FileHandle(forWritingTo: errorFile)
        defer { try? errors.close() }
        process = try ChildProcess(try Self.binary().path, arguments, environment: merged,
                                   standardInput: .pipe, standardOutput: .pipe, standardError: .file(errors))
        if let stdin { process.standardInput?.write(Data(stdin.utf8)) }
        try? process.standardInput?.close()
    }

    /// Runs `warmer ARGUMENTS` to completion.
    static func run(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) async throws -> Result {
        let process = try WarmerProcess(arguments, environment: environment, stdin: stdin)
        return await process.waitForExit()
    }

    /// What a finished process printed and returned.
    struct Result: Sendable {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// Sends a signal (SIGTERM, SIGKILL…).
    func send(_ signal: Int32) {
        process.send(signal)
    }

    /// Waits for the process to exit, reading its output meanwhile.
    ///
    /// The blocking read runs on a thread of its own: a test process has only
    /// as many cooperative threads as cores, and a blocked one stalls others.
    func waitForExit() async -> Result {
        let process = self.process
        let (text, exit): (Data, ChildProcess.Termination) = await withCheckedContinuation { continuation in
            Thread {
                let data = process.standardOutput?.readDataToEndOfFile() ?? Data()
                continuation.resume(returning: (data, process.waitUntilExit()))
            }.start()
        }
        return Result(status: exit.status, standardOutput: String(decoding: text, as: UTF8.self),
                      standardError: standardErrorSoFar)
    }

    /// What the process wrote to standard error so far.
    var standardErrorSoFar: String {
        (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
    }

    deinit {
        process.send(SIGTERM)
        try? FileManager.default.removeItem(at: errorFile)
    }
}
