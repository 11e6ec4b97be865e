import RedisKit
import Scheduler

/// Whether the worker should receive work (`/readyz`): Redis answers, the
/// cache folder takes writes, and the worker is not draining.
///
/// Redis is asked with a PING over a client of its own (short timeout), at
/// most once a second; a probe flood never reaches Redis.
actor Readiness {
    /// The answer to one probe.
    struct Report: Sendable, Encodable {
        /// Whether every check passed.
        let ready: Bool
        /// The first failed check, in words; absent when ready.
        let reason: String?
        /// Each check and its state: `redis`, `cache`, `draining`.
        let checks: [String: String]
    }

    private let redis: RedisClient
    private let state: WorkerState
    private var lastPing: (problem: String?, at: ContinuousClock.Instant)?

    init(redis: RedisClient, state: WorkerState) {
        self.redis = redis
        self.state = state
    }

    /// Runs the checks.
    func report() async -> Report {
        let redisProblem = await pingProblem()
        let cacheProblem = state.cacheProblem
        let draining = state.isDraining
        let checks = [
            "redis": redisProblem.map { "unreachable: \($0)" } ?? "ok",
            "cache": cacheProblem.map { "not writable: \($0)" } ?? "ok",
            "draining": draining ? "yes" : "no",
        ]
        let reason = draining ? "draining: the worker is stopping"
            : redisProblem.map { "Redis unreachable: \($0)" } ?? cacheProblem.map { "cache folder: \($0)" }
        return Report(ready: reason == nil, reason: reason, checks: checks)
    }

    private func pingProblem() async -> String? {
        if let lastPing, ContinuousClock.now - lastPing.at < .seconds(1) { return lastPing.problem }
        var problem: String?
        do {
            let reply = try await redis.send(["PING"])
            if reply.string != "PONG" { problem = "unexpected reply to PING" }
        } catch {
            problem = URLCredentials.masked("\(error)")
        }
        lastPing = (problem, .now)
        return problem
    }
}
