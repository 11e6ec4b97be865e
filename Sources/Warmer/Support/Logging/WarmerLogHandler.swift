import Logging
import Scheduler
import WarmerSupport

/// The `warmer` executable's log handler: one line per event on standard
/// error, as text or JSON (`--log-format`), at `--log-level` and above.
///
/// The component of a line is the logger's label without its `warmer.`
/// prefix (`warmer.worker` → `worker`), or a `component` metadata value when
/// one is set. The message and every metadata text pass through
/// `URLCredentials.masked`, so the password of a URL never reaches a log,
/// whichever message or value quoted it. `LoggingOptions.bootstrap()` installs it for the whole process.
struct WarmerLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    let format: LogFormat
    let component: String
    private let writer: LogLineWriter

    /// A handler for the logger labelled `label`.
    init(label: String, format: LogFormat, level: Logger.Level, writer: LogLineWriter,
         metadataProvider: Logger.MetadataProvider? = nil) {
        self.format = format
        self.logLevel = level
        self.writer = writer
        self.metadataProvider = metadataProvider
        self.component = label.hasPrefix("warmer.") ? String(label.dropFirst("warmer.".count)) : label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        if let error = event.error, merged["error"] == nil { merged["error"] = .string(String(describing: error)) }
        var component = component
        if case .string(let named)? = merged.removeValue(forKey: "component") { component = named }
        // A URL's password never reaches a log (error messages often quote
        // URLs). Each text is masked on its own, before it is quoted or
        // escaped, so that masking never reaches across two values.
        let line = LogLine(timestamp: UTCTime.now(), level: event.level, component: component,
                           message: URLCredentials.masked(event.message.description), metadata: merged.mapValues(Self.masked))
        writer.write(format == .json ? line.json : line.text)
    }

    /// `value` with every URL password in its texts masked.
    private static func masked(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(URLCredentials.masked(text))
        case .stringConvertible(let convertible): .string(URLCredentials.masked(convertible.description))
        case .array(let values): .array(values.map(masked))
        case .dictionary(let values): .dictionary(values.mapValues(masked))
        }
    }
}
