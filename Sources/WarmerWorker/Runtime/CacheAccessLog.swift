import Foundation
import RedisKit

/// The reads of a shared cache folder that `warmer serve` could not count
/// itself (it may not write the folder), kept in Redis until the folder's
/// sweeper applies them: a sorted set of entry file names scored by the
/// time of their last recorded read (`SharedCacheKeys.reads`), bounded to
/// `SharedCacheKeys.readsCapacity` names (the oldest go first).
package struct CacheAccessLog: Sendable {
    let client: RedisClient
    let keys: SharedCacheKeys

    /// The log of the folder `keys` names, in the Redis `client` talks to.
    package init(client: RedisClient, keys: SharedCacheKeys) {
        self.client = client
        self.keys = keys
    }

    /// Records reads of the entries `names`, now; trims the set to its capacity.
    package func record(_ names: some Collection<String>) async throws(RedisError) {
        guard !names.isEmpty else { return }
        let now = String(Int(Date().timeIntervalSince1970 * 1000))
        _ = try await client.pipeline([
            ["ZADD", keys.reads] + names.flatMap { [now, $0] },
            ["ZREMRANGEBYRANK", keys.reads, "0", String(-(SharedCacheKeys.readsCapacity + 1))],
        ])
    }

    /// Takes (removes and returns) up to `count` recorded reads, oldest first.
    func take(_ count: Int) async throws(RedisError) -> [String] {
        let reply = try await client.send(["ZPOPMIN", keys.reads, String(count)])
        // ZPOPMIN answers member, score, member, score…
        return stride(from: 0, to: reply.array.count, by: 2).compactMap { reply.array[$0].string }
    }
}
