import Logging

/// One blocking Redis connection, which follows Redis Cluster redirects.
///
/// Not thread-safe (hiredis contexts are not), and not `Sendable`: create it
/// on the thread that uses it and keep it there. `RedisClient` confines each
/// of its connections to a thread of its own; a caller that must not depend
/// on Swift's cooperative pool (the worker's lease keeper) uses one directly
/// from its own thread. Commands are binary-safe argument vectors and go out
/// pipelined: all appended, then all replies read. Connects lazily, and
/// again on the next call after an error.
///
/// **Redis Cluster.** A node that does not serve a command's slot answers
/// `MOVED SLOT HOST:PORT`, and did not run it. The connection then records
/// the new owner in its route, moves there (same credentials and database)
/// and sends the redirected commands again, in order; the other replies of
/// the pipeline stand. An `ASK` (the slot is migrating and the keys are
/// already on the target) sends `ASKING` and the command to the target once,
/// over a short-lived connection, without moving. A command redirected more
/// than `maximumRedirects` times gets its last redirect as its reply. When
/// the owner cannot be reached (it died; a replica is taking over), the next
/// connection starts from the seed nodes (`RedisURL.nodes`) and learns the
/// new owner from their redirects. On a plain Redis none of this costs
/// anything: no reply is a redirect, and no extra command is sent.
public final class RedisConnection {
    /// How many redirects one command follows.
    static let maximumRedirects = 5

    private let url: RedisURL
    private let timeout: Duration
    private let route: RedisClusterRoute
    /// The node commands go to; nil until connected, and after an error.
    private var node: HiredisContext?
    /// Whether a connection was made before, and whether one broke or was
    /// refused since: the next one made is then a reconnection
    /// (`warmer_redis_reconnects_total`; failed attempts are not counted).
    private var hasConnected = false
    private var wasLost = false

    /// - Parameters:
    ///   - timeout: connect, read and write timeout. Blocking commands must
    ///     finish within it.
    ///   - logger: where a cluster slot's change of owner is logged.
    public convenience init(url: RedisURL, timeout: Duration, logger: Logger = Logger(label: "warmer.redis")) {
        self.init(url: url, timeout: timeout, route: RedisClusterRoute(seeds: url.nodes, logger: logger))
    }

    /// A connection sharing `route` with others (a client's connections).
    init(url: RedisURL, timeout: Duration, route: RedisClusterRoute) {
        self.url = url
        self.timeout = timeout
        self.route = route
    }

    /// Sends `commands` in one pipeline and returns one reply per command,
    /// after following cluster redirects. Error replies come back as
    /// `.error`; a broken connection throws and disconnects.
    public func execute(_ commands: [[String]]) throws(RedisError) -> [RedisReply] {
        // Another connection of the route may have learned a new owner.
        if let current = node, let owner = route.owner, owner != current.endpoint { node = nil }
        if node == nil { try connect() }
        guard let node else { throw .unreachable("not connected") }
        var replies = try send(commands, on: node)
        if replies.contains(where: Self.isRedirect) {
            try followRedirects(of: commands, replies: &replies, answeredBy: node.endpoint)
        }
        return replies
    }

    // MARK: Connecting

    /// Connects to the first of the route's candidates that answers.
    private func connect() throws(RedisError) {
        node = nil
        var failures: [String] = []
        for candidate in route.candidates {
            do {
                try connect(to: candidate)
                return
            } catch .unreachable(let message) {
                route.unreachable(candidate)
                failures.append(message)
            }
        }
        wasLost = true
        throw .unreachable(failures.isEmpty ? "no Redis node to connect to" : failures.joined(separator: "; "))
    }

    /// Connects to `endpoint`, authenticates and selects the database.
    private func connect(to endpoint: RedisEndpoint) throws(RedisError) {
        node = nil
        node = try HiredisContext(endpoint: endpoint, url: url, timeout: timeout)
        if hasConnected, wasLost { RedisMetrics.countReconnect() }
        hasConnected = true
        wasLost = false
    }

    /// Sends `commands` to `node`, forgetting the connection if it breaks.
    private func send(_ commands: [[String]], on node: HiredisContext) throws(RedisError) -> [RedisReply] {
        do {
            return try node.pipeline(commands)
        } catch {
            if self.node === node {
                self.node = nil
                wasLost = true
            }
            throw error
        }
    }

    // MARK: Redirects

    private static func isRedirect(_ reply: RedisReply) -> Bool {
        guard case .error(let message) = reply else { return false }
        return message.hasPrefix("MOVED ") || message.hasPrefix("ASK ")
    }

    /// Sends the redirected commands of a pipeline where their slot is now,
    /// replacing their replies, until none is redirected (or each followed
    /// `maximumRedirects`).
    private func followRedirects(
        of commands: [[String]], replies: inout [RedisReply], answeredBy firstNode: RedisEndpoint
    ) throws(RedisError) {
        // Whether any command ran: then a failure to follow is a broken
        // call (`.connection`), not one that certainly did nothing.
        let someRan = replies.contains { !Self.isRedirect($0) }
        var pending = Self.redirects(in: replies, at: Array(replies.indices), from: firstNode)
        var hops = 0
        while !pending.isEmpty, hops < Self.maximumRedirects {
            hops += 1
            var next: [(index: Int, redirect: RedisRedirect)] = []
            for (target, group) in Self.grouped(pending.filter { $0.redirect.kind == .moved }) {
                route.moved(slot: group[0].redirect.slot, to: target)
                do {
                    try connect(to: target)
                } catch .unreachable(let message) {
                    route.unreachable(target)
                    wasLost = true
                    throw someRan ? .connection(message) : .unreachable(message)
                }
                guard let node else { throw .unreachable("not connected") }
                let answers = try send(group.map { commands[$0.index] }, on: node)
                next += place(answers, of: group, in: &replies, from: target)
            }
            for (target, group) in Self.grouped(pending.filter { $0.redirect.kind == .ask }) {
                for item in group { route.asked(slot: item.redirect.slot, to: target) }
                let once: HiredisContext
                do {
                    once = try HiredisContext(endpoint: target, url: url, timeout: timeout)
                } catch .unreachable(let message) {
                    throw someRan ? .connection(message) : .unreachable(message)
                }
                let answers = try once.pipeline(group.flatMap { [["ASKING"], commands[$0.index]] })
                let commandAnswers = answers.indices.filter { $0 % 2 == 1 }.map { answers[$0] }
                next += place(commandAnswers, of: group, in: &replies, from: target)
            }
            pending = next
        }
    }

    /// Puts `answers` (one per command of `group`, in order) in `replies`;
    /// returns those that are redirects again.
    private func place(
        _ answers: [RedisReply], of group: [(index: Int, redirect: RedisRedirect)],
        in replies: inout [RedisReply], from node: RedisEndpoint
    ) -> [(index: Int, redirect: RedisRedirect)] {
        for (answer, item) in zip(answers, group) { replies[item.index] = answer }
        return Self.redirects(in: replies, at: group.map(\.index), from: node)
    }

    /// The redirects among `replies` at `indices`.
    private static func redirects(
        in replies: [RedisReply], at indices: [Int], from node: RedisEndpoint
    ) -> [(index: Int, redirect: RedisRedirect)] {
        indices.compactMap { index in RedisRedirect(replies[index], from: node).map { (index, $0) } }
    }

    /// `items` grouped by target node, in order of first appearance, each
    /// group in command order.
    private static func grouped(
        _ items: [(index: Int, redirect: RedisRedirect)]
    ) -> [(target: RedisEndpoint, items: [(index: Int, redirect: RedisRedirect)])] {
        var groups: [(target: RedisEndpoint, items: [(index: Int, redirect: RedisRedirect)])] = []
        for item in items {
            if let position = groups.firstIndex(where: { $0.target == item.redirect.target }) {
                groups[position].items.append(item)
            } else {
                groups.append((item.redirect.target, [item]))
            }
        }
        return groups
    }
}
