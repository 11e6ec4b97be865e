import Logging

extension Job {
    /// The fields that identify the job in a log line: `job`, `batch` (its
    /// batches, comma-separated), `url` (password masked) and `attempt`.
    public var logMetadata: Logger.Metadata {
        [
            "job": .string(id),
            "batch": .string(batches.joined(separator: ",")),
            "url": .string(URLCredentials.masked(url)),
            "attempt": .stringConvertible(attempt),
        ]
    }
}
