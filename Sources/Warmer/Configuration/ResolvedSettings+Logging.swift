import Logging

extension ResolvedSettings {
    /// Installs `WarmerLogHandler` for the process with the resolved
    /// `log-format` and `log-level`. A command calls it right after
    /// resolving its settings, before it makes anything that logs; once per
    /// process (swift-log's rule).
    func bootstrapLogging() {
        let writer = LogLineWriter()
        let format = LogFormat(rawValue: self[Settings.logFormat]) ?? .text
        let level = self[Settings.logLevel]
        LoggingSystem.bootstrap { label in
            WarmerLogHandler(label: label, format: format, level: level, writer: writer)
        }
    }
}
