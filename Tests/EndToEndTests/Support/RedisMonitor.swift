import Foundation
import TestSupport

/// `redis-cli MONITOR` on a test's own redis-server, its output in a file:
/// every command the server runs, one line each, with all its arguments.
/// For tests about what reaches Redis (how large a call is), not when.
final class RedisMonitor: Sendable {
    private let process: ChildProcess
    private let output: URL
    private let port: Int

    /// Starts monitoring the redis-server on 127.0.0.1:`port`; returns once
    /// redis-cli printed its `OK` (from then on every command is seen).
    init(port: Int, directory: URL) async throws {
        self.port = port
        output = directory.appendingPathComponent("monitor.txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let file = try FileHandle(forWritingTo: output)
        defer { try? file.close() }
        process = try ChildProcess("/usr/bin/env", ["redis-cli", "-p", String(port), "MONITOR"],
                                   standardOutput: .file(file))
        let output = output
        guard await eventually(timeout: .seconds(30), { Self.read(output).hasPrefix("OK") }) else {
            stop()
            throw HarnessError("redis-cli MONITOR did not start")
        }
    }

    /// The lines of every command run so far: sends a marker command and
    /// waits for it to come back through the monitor, so nothing run
    /// before this call is missing.
    func lines() async throws -> [Substring] {
        let marker = "monitor-mark-\(UUID().uuidString)"
        _ = try await redisCLI(url: "redis://127.0.0.1:\(port)", ["ECHO", marker])
        let output = output
        guard await eventually(timeout: .seconds(30), { Self.read(output).contains(marker) }) else {
            throw HarnessError("the monitor never showed its marker")
        }
        return Self.read(output).split(separator: "\n")
    }

    /// Stops redis-cli (SIGKILL: in MONITOR it does not end on SIGTERM).
    func stop() {
        process.send(SIGKILL)
        process.waitUntilExit()
    }

    private static func read(_ file: URL) -> String {
        (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }
}
