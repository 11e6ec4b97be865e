import Foundation
import Scheduler

/// Structured log lines on standard error: `time level message key=value…`,
/// with the password of any URL in them masked (`URLCredentials`).
struct Log: Sendable {
    /// The component name printed with every line.
    let component: String

    func info(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        write("info", message, fields)
    }

    func warning(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        write("warn", message, fields)
    }

    func error(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        write("error", message, fields)
    }

    private func write(_ level: String, _ message: String, _ fields: KeyValuePairs<String, String>) {
        let time = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        var line = "\(time) \(level) [\(component)] \(message)"
        for (key, value) in fields {
            line += value.contains(" ") ? " \(key)=\"\(value)\"" : " \(key)=\(value)"
        }
        // A URL's password never reaches a log (error messages often quote URLs).
        FileHandle.standardError.write(Data((URLCredentials.masked(line) + "\n").utf8))
    }
}
