import Metrics
import Synchronization

/// What the fleet's rate limits (`FleetRateLimiter`) report to swift-metrics:
/// the downloads that waited for a permit, how long, how often they were
/// told to come back later, and the slots they woke for too late, by host (docs/observability.md, "Metrics").
///
/// The `host` label is bounded: a host with its own limit
/// (`--host-rate-limit-override`) keeps its name, and so do the first
/// `namedHostLimit` other hosts seen; every later host counts as `other`,
/// so URLs from producers cannot mint series without end.
final class FleetRateMetrics: Sendable {
    /// How many hosts without an override get a label of their own.
    static let namedHostLimit = 32

    private let overridden: Set<String>
    private let named = Mutex<Set<String>>([])

    /// Metrics that name `overridden` hosts always.
    init(overridden: Set<String>) {
        self.overridden = overridden
    }

    /// The `host` label of `host`.
    func label(of host: String) -> String {
        if overridden.contains(host) { return host }
        return named.withLock { named in
            if named.contains(host) { return host }
            guard named.count < Self.namedHostLimit else { return "other" }
            named.insert(host)
            return host
        }
    }

    /// Records a permit granted after `waited` (a permit at once is not a wait).
    func permitted(host: String, waited: Duration) {
        guard waited >= .milliseconds(1) else { return }
        let label = label(of: host)
        Counter(label: "warmer_fleet_rate_waits_total", dimensions: [("host", label)]).increment()
        Timer(label: "warmer_fleet_rate_wait_seconds", dimensions: [("host", label)], preferredDisplayUnit: .seconds)
            .record(duration: waited)
    }

    /// Counts a request told to come back later (its band's horizon was full).
    func refused(host: String) {
        Counter(label: "warmer_fleet_rate_refusals_total", dimensions: [("host", label(of: host))]).increment()
    }

    /// Counts a slot given up because the download woke for it too late
    /// (`FleetRateLimiter`): it reserved the next free slot instead.
    func missedSlot(host: String) {
        Counter(label: "warmer_fleet_rate_missed_slots_total", dimensions: [("host", label(of: host))]).increment()
    }

    /// Counts a permit call that failed because Redis did not answer.
    func redisFailed() {
        Counter(label: "warmer_fleet_rate_redis_errors_total").increment()
    }
}
