import Foundation
import TestSupport

/// What a `redis-cli` run printed.
struct RedisCLIResult: Sendable, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let standardOutput: String
    let standardError: String

    /// Standard output split into lines. Not on a terminal, `redis-cli`
    /// prints replies raw: one line per string or integer, arrays flattened.
    var outputLines: [String] {
        standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    var description: String {
        "`redis-cli \(arguments.joined(separator: " "))` exited \(status)\nstdout:\n\(standardOutput)\nstderr:\n\(standardError)"
    }
}

/// Runs `redis-cli -u URL COMMAND…` (the binary on PATH), as a producer or
/// an operator in another language would, and returns what it printed.
///
/// The arguments go to the process as they are, so `warmer:{q}:intake` or a
/// JSON document need no shell quoting. Fails when it does not exit within
/// `timeout`.
func redisCLI(
    url: String, _ command: [String], timeout: Duration = .seconds(20)
) async throws -> RedisCLIResult {
    let arguments = ["-u", url] + command
    // The blocking reads and the wait run on a thread of their own (see
    // `offCooperativePool`); a timer kills a redis-cli that hangs.
    return try await offCooperativePool {
        let process = try ChildProcess("/usr/bin/env", ["redis-cli"] + arguments,
                                       standardOutput: .pipe, standardError: .pipe)
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let watchdog = DispatchWorkItem { process.send(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
        defer { watchdog.cancel() }
        // Both outputs are a few lines: reading one after the other cannot fill a pipe.
        let stdout = process.standardOutput?.readDataToEndOfFile() ?? Data()
        let stderr = process.standardError?.readDataToEndOfFile() ?? Data()
        let exit = process.waitUntilExit()
        return RedisCLIResult(arguments: arguments, status: exit.status,
                              standardOutput: String(decoding: stdout, as: UTF8.self),
                              standardError: String(decoding: stderr, as: UTF8.self))
    }
}

extension RedisCLIResult {
    /// The entries of an `XREAD … STREAMS KEY ID` (one stream) or `XRANGE`
    /// reply, parsed from the raw output: the stream key (XREAD only), then
    /// per entry its id line (`MS-SEQ`) and its field and value lines.
    /// Assumes no field or value spans lines.
    var streamEntries: [(id: String, fields: [String: String])] {
        var entries: [(id: String, fields: [String: String])] = []
        var pendingField: String?
        for line in outputLines where !line.isEmpty {
            // An id where a field name is expected starts the next entry
            // (no field name looks like `123-4`; a value might).
            if pendingField == nil, Self.isStreamID(line) {
                entries.append((line, [:]))
            } else if entries.isEmpty {
                continue // the stream key of an XREAD reply
            } else if let field = pendingField {
                entries[entries.count - 1].fields[field] = line
                pendingField = nil
            } else {
                pendingField = line
            }
        }
        return entries
    }

    private static func isStreamID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }
}
