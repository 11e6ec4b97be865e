import ArgumentParser
import Scheduler

/// The queue policy a worker applies: leases, stalls, retries, aging, retention.
struct QueueOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Seconds a claimed job stays leased without renewal; a crashed worker's jobs run again after it.", valueName: "seconds"))
    var leaseDuration: Int = 30

    @Option(help: ArgumentHelp("Times a job's lease may expire (its worker died or hung) before it is dead-lettered as stalled.", valueName: "n"))
    var maxStalls: Int = 2

    @Option(help: ArgumentHelp("Attempts a job gets when it fails with a transient error (connection, timeout, 429, 5xx), the first included.", valueName: "n"))
    var jobAttempts: Int = 3

    @Option(help: ArgumentHelp("Seconds before a failed job's second attempt; doubled for each later one (with jitter, at most 300).", valueName: "seconds"))
    var retryBackoff: Double = 5

    @Option(help: ArgumentHelp("Seconds of waiting one priority level is worth, so low priorities are never starved; 0 for strict priorities. Applies to jobs expanded from intake documents.", valueName: "seconds"))
    var aging: Double = 60

    @Option(help: ArgumentHelp("Seconds a finished batch, its events and its finished jobs stay readable.", valueName: "seconds"))
    var retention: Int = 7 * 24 * 3600

    func validate() throws {
        guard leaseDuration >= 3 else { throw ValidationError("--lease-duration must be at least 3 seconds") }
        guard maxStalls >= 0 else { throw ValidationError("--max-stalls must be 0 or more") }
        guard jobAttempts >= 1 else { throw ValidationError("--job-attempts must be at least 1") }
        guard (0...Self.longestWait).contains(retryBackoff), (0...Self.longestWait).contains(aging) else {
            throw ValidationError("--retry-backoff and --aging must be 0-\(Int(Self.longestWait)) seconds (a year)")
        }
        guard retention >= 1 else { throw ValidationError("--retention must be at least 1 second") }
    }

    /// The longest `--retry-backoff` and `--aging`, in seconds: a year.
    static let longestWait: Double = 365 * 24 * 3600

    /// The queue configuration these options describe.
    var configuration: JobQueue.Configuration {
        var configuration = JobQueue.Configuration()
        configuration.leaseDuration = .seconds(leaseDuration)
        configuration.maximumStalls = maxStalls
        configuration.retry.maximumAttempts = jobAttempts
        configuration.retry.baseDelay = .milliseconds(Int(retryBackoff * 1000))
        configuration.agingInterval = .milliseconds(Int(aging * 1000))
        configuration.retention = .seconds(retention)
        return configuration
    }
}
