import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into a stop request the worker can poll or await.
///
/// The first signal asks for a graceful stop; the process keeps running until
/// the worker has finished or released its jobs.
final class StopSignal: Sendable {
    private let flag = Flag()
    /// Kept so that the signal sources live as long as the stop signal.
    private let sources: Mutex<[any DispatchSourceSignal]>

    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
        let waiters = Mutex<[CheckedContinuation<Void, Never>]>([])

        func set() {
            value.store(true, ordering: .releasing)
            let waiting = waiters.withLock { waiters in
                defer { waiters.removeAll() }
                return waiters
            }
            for waiter in waiting { waiter.resume() }
        }
    }

    init(signals: [Int32] = [SIGINT, SIGTERM]) {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [flag] in flag.set() }
            source.resume()
            sources.append(source)
        }
        self.sources = Mutex(sources)
    }

    /// Whether a stop was requested.
    var isRequested: Bool { flag.value.load(ordering: .acquiring) }

    /// Requests a stop, as a signal would.
    func request() {
        flag.set()
    }

    /// Returns once a stop is requested.
    func wait() async {
        await withCheckedContinuation { continuation in
            let alreadyRequested = flag.waiters.withLock { waiters in
                if flag.value.load(ordering: .acquiring) { return true }
                waiters.append(continuation)
                return false
            }
            if alreadyRequested { continuation.resume() }
        }
    }
}
