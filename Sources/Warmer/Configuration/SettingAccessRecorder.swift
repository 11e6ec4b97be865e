import Configuration
import Synchronization

/// Keeps the last access a `ConfigReader` reported: which providers it
/// asked and what each answered, so the resolver knows where a value came
/// from (or which source holds a value that does not convert).
final class SettingAccessRecorder: AccessReporter, Sendable {
    private let lastEvent = Mutex<AccessEvent?>(nil)

    func report(_ event: AccessEvent) {
        lastEvent.withLock { $0 = event }
    }

    /// The last event reported, forgotten once taken.
    func take() -> AccessEvent? {
        lastEvent.withLock { event in
            defer { event = nil }
            return event
        }
    }
}
