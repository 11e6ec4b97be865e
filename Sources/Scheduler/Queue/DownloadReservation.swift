/// What the fleet's rate limits answer a download that asks to start
/// (`JobQueue.reserveDownload`, rate-permit.lua).
public enum DownloadReservation: Sendable, Hashable {
    /// A slot is reserved: start the download after `wait` (zero: now).
    case granted(wait: Duration)
    /// Every free slot is beyond the request's horizon (its priority band):
    /// nothing is reserved; ask again after `retryIn`.
    case refused(retryIn: Duration)
}
