import RedisKit
import WarmerSupport

/// The lease that makes one worker the sweeper of a shared cache folder: a
/// Redis key holding the worker's id, with an expiry. The holder renews it
/// before it sweeps and while it sweeps; when the holder stops or dies the
/// key expires and the next worker to ask takes it.
struct CacheSweepLease: Sendable {
    /// Takes the lease when it is free or already ours, and (re)sets its
    /// expiry; 1 when the caller holds it, 0 otherwise.
    private static let acquire = RedisScript("""
        local holder = redis.call('GET', KEYS[1])
        if holder == ARGV[1] or (not holder and redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])) then
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          return 1
        end
        return 0
        """)

    let client: RedisClient
    /// The lease's key (`SharedCacheKeys.sweeper`).
    let key: String
    /// Who asks: the worker's id.
    let holder: String
    /// How long the lease lasts without a renewal.
    let duration: Duration

    /// Takes or renews the lease; whether this worker holds it now.
    func acquireOrRenew() async throws(RedisError) -> Bool {
        let reply = try await Self.acquire.run(on: client, keys: [key], arguments: [holder, String(duration.milliseconds)])
        return reply.integer == 1
    }

    /// Gives the lease up if this worker holds it (at a clean stop), so
    /// another worker sweeps without waiting for it to expire.
    func release() async {
        _ = try? await client.send(["EVAL", """
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
            return 0
            """, "1", key, holder])
    }
}
