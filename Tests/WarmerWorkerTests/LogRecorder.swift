import Logging
import TestSupport

/// A log handler that records every message (at debug and above) in a
/// `CallLog`: a test waits for the line that marks a step of the worker
/// (`stopping: no new jobs`) instead of guessing how long the step takes.
struct LogRecorder: LogHandler {
    /// Every message logged, in order.
    let messages: CallLog<String>
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.record(event.message.description)
    }
}
