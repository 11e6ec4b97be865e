import Metrics

/// What the Redis layer reports to swift-metrics: the round trip of each
/// batch of pipelined commands, the reconnections after a broken or
/// refused connection, and the Redis Cluster redirects followed
/// (docs/observability.md, "Metrics").
///
/// Handles are created on first use, after the executable bootstrapped its
/// backend; without one they are swift-metrics' no-ops.
enum RedisMetrics {
    private static let roundTrip = Timer(label: "warmer_redis_round_trip_seconds", preferredDisplayUnit: .seconds)
    private static let reconnects = Counter(label: "warmer_redis_reconnects_total")
    private static let redirects = [RedisRedirect.Kind.moved, .ask].map {
        ($0, Counter(label: "warmer_redis_redirects_total", dimensions: [("kind", $0.rawValue)]))
    }

    /// Records one round trip (a pipelined batch of commands, sent and answered).
    static func recordRoundTrip(_ duration: Duration) {
        roundTrip.record(duration: duration)
    }

    /// Counts a connection made again after the previous one broke or was refused.
    static func countReconnect() {
        reconnects.increment()
    }

    /// Counts a redirect followed: a `MOVED` (a connection went to a slot's
    /// new owner) or an `ASK` (one command went to a migrating slot's target).
    static func countRedirect(_ kind: RedisRedirect.Kind) {
        redirects.first { $0.0 == kind }?.1.increment()
    }
}
