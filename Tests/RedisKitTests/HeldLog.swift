import Dispatch
import Logging
import Synchronization

/// A log handler that records messages, and holds the thread that logs
/// `holding` until `release()`. Copies (the logger makes them) share what
/// they record.
struct HeldLog: LogHandler {
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]
    private let holding: String?
    private let shared = Shared()

    /// What every copy records, and the gate a held thread waits at.
    private final class Shared: Sendable {
        let state = Mutex((messages: [String](), held: false))
        let gate = DispatchSemaphore(value: 0)
    }

    init(holding: String?) {
        self.holding = holding
    }

    /// Every message logged, in the order it was written.
    var messages: [String] { shared.state.withLock { $0.messages } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let message = event.message
        if message.description == holding {
            shared.state.withLock { $0.held = true }
            shared.gate.wait()
        }
        shared.state.withLock { $0.messages.append(message.description) }
    }

    /// Returns once a thread is held.
    func waitUntilHeld() async {
        while !shared.state.withLock({ $0.held }) { await Task.yield() }
    }

    /// Lets the held thread write its line.
    func release() {
        shared.gate.signal()
    }
}
