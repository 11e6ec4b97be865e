import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into a stop request the worker polls.
///
/// The first signal asks for a graceful stop; the process keeps running until
/// the worker has finished or released its jobs.
final class StopSignal: Sendable {
    private let flag = Flag()
    /// Kept so that the signal sources live as long as the stop signal.
    private let sources: Mutex<[any DispatchSourceSignal]>

    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    init(signals: [Int32] = [SIGINT, SIGTERM]) {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [flag] in flag.value.store(true, ordering: .releasing) }
            source.resume()
            sources.append(source)
        }
        self.sources = Mutex(sources)
    }

    /// Whether a stop was requested.
    var isRequested: Bool { flag.value.load(ordering: .acquiring) }

    /// Requests a stop, as a signal would.
    func request() {
        flag.value.store(true, ordering: .releasing)
    }
}
