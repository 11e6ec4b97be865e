/// One failed or dead-lettered job of a batch, from the batch's failure
/// list (`warmer:{Q}:batch:ID:failures`, docs/wire-format.md).
public struct BatchFailure: Sendable, Hashable, Codable {
    /// The job id.
    public let job: String
    /// The job's URL, its password masked.
    public let url: String
    /// `failed` (it ran and failed for good) or `dead` (dead-lettered: it could not run, or stalled too often).
    public let state: String
    /// The error code, e.g. `http_404`, `invalid_url`, `stalled`.
    public let error: String
    /// The human-readable reason (URL passwords masked).
    public let message: String
    /// When the job ended, ms since the epoch (Redis clock).
    public let at: Int64

    /// A failure.
    public init(job: String, url: String, state: String, error: String, message: String, at: Int64) {
        self.job = job
        self.url = url
        self.state = state
        self.error = error
        self.message = message
        self.at = at
    }
}
