import RedisKit
import WarmerSupport

extension JobQueue {
    /// Asks the fleet's rate limits (`limits`, held in Redis for every worker
    /// of the queue) for a slot to start a download from `host`, in one
    /// round trip (rate-permit.lua: GCRA with reservations on Redis's clock).
    ///
    /// - Parameters:
    ///   - band: the request's priority band, 0 (veryHigh) to 4 (veryLow):
    ///     higher bands may reserve further ahead when permits are short.
    ///   - waited: how long the request has waited for a permit so far; it
    ///     raises the band by one per aging interval, as in the queue.
    public func reserveDownload(
        host: String, band: Int, waited: Duration, limits: FleetRateLimits
    ) async throws(SchedulerError) -> DownloadReservation {
        let reply = try await run(QueueScripts.ratePermit, [
            host, String(min(max(band, 0), 4)), String(max(0, waited.milliseconds)),
            String(FleetRateLimits.interval(limits.global)), String(FleetRateLimits.interval(limits.limit(forHost: host))),
        ])
        let fields = reply.array
        guard fields.count == 2, let granted = fields[0].integer, let micros = fields[1].string.flatMap(Int64.init) else {
            throw .redis(.unexpectedReply("rate-permit: \(reply)"))
        }
        let duration = Duration.microseconds(max(0, micros))
        return granted == 1 ? .granted(wait: duration) : .refused(retryIn: duration)
    }
}
