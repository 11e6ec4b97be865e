/// What the fleet's rate limits ask of the queue: a slot to start one
/// download, under the limits every worker of the queue shares.
///
/// `JobQueue` is the real one (`reserveDownload`, rate-permit.lua); the
/// worker's limiter (`FleetRateLimiter`) is tested over a fake that answers
/// as a test scripts it (`ScriptedDownloadSlots`, SchedulerFakes).
public protocol DownloadSlots: Sendable {
    /// Reserves the earliest slot to start a download from `host`, or
    /// refuses when every free slot is beyond the request's horizon.
    /// - Parameters:
    ///   - band: the request's priority band, 0 (veryHigh) to 4 (veryLow).
    ///   - waited: how long the request has waited for a permit so far.
    func reserveDownload(
        host: String, band: Int, waited: Duration, limits: FleetRateLimits
    ) async throws(SchedulerError) -> DownloadReservation
}

extension JobQueue: DownloadSlots {}
