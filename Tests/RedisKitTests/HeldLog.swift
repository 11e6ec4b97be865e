import Dispatch
import Logging
import Synchronization

/// A log handler that records messages, and holds the thread that logs
/// `holding` until `release()`.
final class HeldLog: LogHandler, @unchecked Sendable {
    // @unchecked: its own state is behind `state`; `logLevel` and `metadata`
    // are the protocol's, set once by `Logger` before any line is logged.
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]
    private let holding: String?
    private let state = Mutex((messages: [String](), held: false))
    private let gate = DispatchSemaphore(value: 0)

    init(holding: String?) {
        self.holding = holding
    }

    /// Every message logged, in the order it was written.
    var messages: [String] { state.withLock { $0.messages } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        if message.description == holding {
            state.withLock { $0.held = true }
            gate.wait()
        }
        state.withLock { $0.messages.append(message.description) }
    }

    /// Returns once a thread is held.
    func waitUntilHeld() async {
        while !state.withLock({ $0.held }) { await Task.yield() }
    }

    /// Lets the held thread write its line.
    func release() {
        gate.signal()
    }
}
