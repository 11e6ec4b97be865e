import Metrics

/// What the Redis layer reports to swift-metrics: the round trip of each
/// batch of pipelined commands and the reconnections after a broken or
/// refused connection (docs/operations.md, "Metrics").
///
/// Handles are created on first use, after the executable bootstrapped its
/// backend; without one they are swift-metrics' no-ops.
enum RedisMetrics {
    private static let roundTrip = Timer(label: "warmer_redis_round_trip_seconds", preferredDisplayUnit: .seconds)
    private static let reconnects = Counter(label: "warmer_redis_reconnects_total")

    /// Records one round trip (a pipelined batch of commands, sent and answered).
    static func recordRoundTrip(_ duration: Duration) {
        roundTrip.record(duration: duration)
    }

    /// Counts a connection made again after the previous one broke or was refused.
    static func countReconnect() {
        reconnects.increment()
    }
}
