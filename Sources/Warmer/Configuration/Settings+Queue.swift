import Scheduler

/// The queue policy a worker applies: leases, stalls, retries, aging, retention, recently warmed work.
extension Settings {
    static let queuePolicy: [any AnySetting] = [leaseDuration, maxStalls, jobAttempts, retryBackoff, aging, groupBurst, retention, recentCapacity]

    /// The longest `retry-backoff` and `aging`, in seconds: a year.
    static let longestWait: Double = 365 * 24 * 3600

    static let leaseDuration = Setting<Int>(
        "lease-duration", kind: .wholeNumber, default: 30, example: "30", valueName: "seconds", commands: [.worker],
        help: "Seconds a claimed job stays leased without renewal; a crashed worker's jobs run again after it.",
        convert: SettingConversion.wholeNumber(3...JobQueue.timeoutRange.upperBound))

    static let maxStalls = Setting<Int>(
        "max-stalls", kind: .wholeNumber, default: 2, example: "2", valueName: "n", commands: [.worker],
        help: "Times a job's lease may expire (its worker died or hung) before it is dead-lettered as stalled.",
        convert: SettingConversion.wholeNumber(0...1000))

    static let jobAttempts = Setting<Int>(
        "job-attempts", kind: .wholeNumber, default: 3, example: "3", valueName: "n", commands: [.worker],
        help: "Attempts a job gets when it fails with a transient error (connection, timeout, 429, 5xx), the first included.",
        convert: SettingConversion.wholeNumber(1...1000))

    static let retryBackoff = Setting<Double>(
        "retry-backoff", kind: .number, default: 5, example: "5", valueName: "seconds", commands: [.worker],
        help: "Seconds before a failed job's second attempt; doubled for each later one (with jitter, at most 300).",
        convert: SettingConversion.number(0...longestWait))

    static let aging = Setting<Double>(
        "aging", kind: .number, default: 60, example: "60", valueName: "seconds", commands: [.worker, .enqueue, .serve],
        help: "Seconds of waiting one priority level is worth, so low priorities are never starved; 0 for strict priorities. The worker applies it to jobs expanded from intake documents and to downloads waiting for a fleet rate-limit permit, enqueue to its batch.",
        convert: SettingConversion.number(0...longestWait))

    static let groupBurst = Setting<Int>(
        "group-burst", kind: .wholeNumber, default: 32, example: "32", valueName: "claims", commands: [.worker, .enqueue, .serve],
        help: "Claims a group (a batch, or a producer's group) that becomes active may take in a row before the groups of its priority take turns, so that a small batch arriving while a big one holds every slot gets the next freed slots; at most the jobs running less one per group in line, shared by every group that becomes active and refilled by one claim per turn of the others. 0 for strict turns.",
        convert: SettingConversion.wholeNumber(0...100_000))

    static let retention = Setting<Int>(
        "retention", kind: .wholeNumber, default: 7 * 24 * 3600, example: "604800", valueName: "seconds", commands: [.worker, .serve],
        help: "Seconds a finished batch, its events and its finished jobs stay readable.",
        convert: SettingConversion.wholeNumber(1...Int(longestWait) * 100))

    static let recentCapacity = Setting<Int>(
        "recent-capacity", kind: .wholeNumber, default: 250_000, example: "250000", valueName: "entries", commands: [.worker],
        help: "Completed works (URL, destination, processing) the queue remembers for batches that give freshFor, about 127 bytes of Redis memory each; the oldest are forgotten first, and none is kept past the retention. 0 remembers none (freshFor then makes every URL a job).",
        convert: SettingConversion.wholeNumber(0...100_000_000))
}
