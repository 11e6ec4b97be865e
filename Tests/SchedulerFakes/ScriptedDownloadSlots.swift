import Scheduler
import Synchronization
import TestSupport

/// Download slots that answer as the test scripted them, in order, and
/// record every request (`reservations`): the fleet rate limiter's tests
/// decide what "Redis" grants without a clock of Redis's own.
public final class ScriptedDownloadSlots: DownloadSlots {
    /// One request for a slot, as the limiter asked for it.
    public struct Request: Sendable, Equatable {
        public let host: String
        public let band: Int
        public let waited: Duration
    }

    /// Every request so far.
    public let reservations = CallLog<Request>()
    private let answers: Mutex<[DownloadReservation]>

    /// Slots that give `answers` in order; once they run out, every slot is at once.
    public init(_ answers: [DownloadReservation]) {
        self.answers = Mutex(answers)
    }

    public func reserveDownload(
        host: String, band: Int, waited: Duration, limits: FleetRateLimits
    ) async throws(SchedulerError) -> DownloadReservation {
        reservations.record(Request(host: host, band: band, waited: waited))
        return answers.withLock { $0.isEmpty ? .granted(wait: .zero) : $0.removeFirst() }
    }
}
