import Logging
import Synchronization

/// Where a client's connections find the node that serves their commands.
///
/// On a plain Redis this is the URL's server and never changes. On a Redis
/// Cluster, any node answers a command for a slot it does not serve with a
/// redirect (`MOVED`): the route remembers the node it named (the *owner*),
/// so that every connection sharing the route goes there directly from its
/// next round trip on. When no connection can be made to the owner (it died
/// and a replica took over), connections start again from the seed nodes
/// (the URL's hosts) and the nodes redirects named before, and learn the new
/// owner from the next redirect.
///
/// Shared by the connections of one `RedisClient` (each on its own thread):
/// its state is behind a mutex, taken once per round trip. Logs the owner
/// the first redirect names at debug (`Redis cluster slot found`), and each
/// later change of owner once, at info (`Redis cluster slot moved`).
final class RedisClusterRoute: Sendable {
    private struct State {
        /// The node the last `MOVED` named, while it can be reached.
        var owner: RedisEndpoint?
        /// The last owner logged, so that a node forgotten and learned again
        /// (while a failover is under way) is not logged twice.
        var announcedOwner: RedisEndpoint?
        /// Nodes named by redirects, tried after the seeds.
        var learned: [RedisEndpoint] = []
    }

    /// The URL's nodes, in the order given.
    let seeds: [RedisEndpoint]
    private let state = Mutex(State())
    private let logger: Logger

    init(seeds: [RedisEndpoint], logger: Logger) {
        self.seeds = seeds
        self.logger = logger
    }

    /// The node redirects named last, if it is still believed to serve them.
    var owner: RedisEndpoint? {
        state.withLock { $0.owner }
    }

    /// The nodes to try when connecting, best first: the owner, the seeds,
    /// then the other nodes redirects named (no node twice).
    var candidates: [RedisEndpoint] {
        let (owner, learned) = state.withLock { ($0.owner, $0.learned) }
        var result: [RedisEndpoint] = []
        for node in [owner].compactMap({ $0 }) + seeds + learned where !result.contains(node) {
            result.append(node)
        }
        return result
    }

    /// Records a `MOVED` a connection follows: `target` serves `slot` now.
    /// Counts every one; logs the first owner and each change of owner.
    func moved(slot: Int, to target: RedisEndpoint) {
        let previous: RedisEndpoint?? = state.withLock { state in
            if !state.learned.contains(target), !seeds.contains(target) {
                state.learned.append(target)
            }
            state.owner = target
            guard state.announcedOwner != target else { return .none }
            defer { state.announcedOwner = target }
            return .some(state.announcedOwner)
        }
        RedisMetrics.countRedirect(.moved)
        guard case .some(let previous) = previous else { return }
        guard let previous else {
            // The first redirect only finds the node (the seed given was another one).
            logger.debug("Redis cluster slot found", metadata: [
                "slot": .stringConvertible(slot), "node": .string(target.description),
            ])
            return
        }
        logger.info("Redis cluster slot moved", metadata: [
            "slot": .stringConvertible(slot), "node": .string(target.description),
            "previous": .string(previous.description),
        ])
    }

    /// Records an `ASK`: one command went to `target` while `slot` migrates.
    func asked(slot: Int, to target: RedisEndpoint) {
        RedisMetrics.countRedirect(.ask)
        logger.debug("Redis cluster slot migrating", metadata: [
            "slot": .stringConvertible(slot), "node": .string(target.description),
        ])
    }

    /// Records that no connection could be made to `node`: if it was the
    /// owner, connections go back to the seeds.
    func unreachable(_ node: RedisEndpoint) {
        state.withLock { state in
            if state.owner == node { state.owner = nil }
        }
    }
}
