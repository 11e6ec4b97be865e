import Foundation
import Logging

extension ResolvedSettings {
    /// Installs `WarmerLogHandler` for the process with the resolved
    /// `log-format` and `log-level`. A command calls it right after
    /// resolving its settings, before it makes anything that logs; once per
    /// process (swift-log's rule). Then warns of `WARMER_*` variables that
    /// look like a misspelled setting (`MisspelledVariables`). The lines go
    /// to standard error unless `writer` sends them elsewhere.
    func bootstrapLogging(environment: [String: String] = ProcessInfo.processInfo.environment,
                          writer: LogLineWriter = LogLineWriter()) {
        let format = LogFormat(rawValue: self[Settings.logFormat]) ?? .text
        let level = self[Settings.logLevel]
        LoggingSystem.bootstrap { label in
            WarmerLogHandler(label: label, format: format, level: level, writer: writer)
        }
        let logger = Logger(label: "warmer.config")
        for (given, meant) in MisspelledVariables.find(in: environment) {
            logger.warning("ignoring environment variable \(given): no such setting; did you mean \(meant)?")
        }
    }
}
