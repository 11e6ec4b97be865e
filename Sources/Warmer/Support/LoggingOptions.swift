import ArgumentParser
import Logging

/// `--log-format` and `--log-level`, shared by every command that logs.
///
/// `bootstrap()` installs `WarmerLogHandler` for the process; a command
/// calls it first thing in `run()`, before it makes anything that logs.
struct LoggingOptions: ParsableArguments {
    @Option(name: .customLong("log-format"), help: ArgumentHelp(
        "Log lines on standard error as text or json (one object per line).", valueName: "format"))
    var format: LogFormat = .text

    @Option(name: .customLong("log-level"), help: ArgumentHelp(
        "Lowest level logged: trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var level: Logger.Level = .info

    /// Installs the handler. Once per process (swift-log's rule).
    func bootstrap() {
        let writer = LogLineWriter()
        let format = format, level = level
        LoggingSystem.bootstrap { label in
            WarmerLogHandler(label: label, format: format, level: level, writer: writer)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
