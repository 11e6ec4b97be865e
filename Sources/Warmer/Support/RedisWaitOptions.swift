import ArgumentParser

/// `--redis-wait`, shared by every command that talks to Redis but `worker`
/// (which waits for Redis for as long as it runs).
struct RedisWaitOptions: ParsableArguments {
    @Option(name: .customLong("redis-wait"), help: ArgumentHelp(
        "Seconds to wait for a Redis that is unreachable, loading or busy before giving up (0: give up at once).",
        valueName: "seconds"))
    var seconds: Double = 60

    func validate() throws {
        guard seconds >= 0, seconds.isFinite else { throw ValidationError("--redis-wait must be 0 or more seconds") }
    }

    /// The waiting policy the flag sets.
    var patience: RedisPatience {
        RedisPatience(limit: .milliseconds(Int(seconds * 1000)))
    }
}
