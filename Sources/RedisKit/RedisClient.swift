import Foundation
import Logging
import WarmerSupport

/// A Redis client for async code: connections on threads of their own, with
/// automatic pipelining.
///
/// hiredis calls block, so they never run on Swift's cooperative pool: a
/// connection's thread takes every command queued since its last round trip
/// and sends them as one pipeline. Many concurrent callers therefore cost one
/// round trip per batch, not per command. Replies keep command order.
///
/// With several connections, one batch can be in Redis while the next one
/// gathers and a third is answered: a busy worker and Redis then work at the
/// same time instead of taking turns. The commands of one `pipeline` call
/// always share a connection, in order; separate calls may not, so a caller
/// that needs two calls in order awaits the first (as every caller does).
///
/// A blocking command (BLMOVE, XREAD BLOCK) holds the connection for its whole
/// wait; give such commands a client of their own, and send them with
/// `sendBlocking`, whose caller a cancellation frees at once. After a
/// connection error the next batch reconnects.
///
/// The client logs the first failure of an outage (`Redis connection lost`,
/// warning) and the first success after it (`Redis reconnected`, info), with
/// the server's URL (password masked) and the client's name.
///
/// On a Redis Cluster the client may be given any node (or several seed
/// nodes): its connections follow the cluster's redirects, sharing what one
/// of them learns, so a slot's new owner is found by one round trip and
/// logged once (see `RedisConnection`). All keys of a queue live in one
/// slot; a client serving one queue therefore talks to one node at a time.
public final class RedisClient: Sendable {
    /// The server this client talks to.
    public let url: RedisURL
    /// The requests waiting for a connection's thread.
    private let requests: ThreadInbox<Request>

    /// Creates a client and starts its threads. Connects lazily.
    ///
    /// - Parameters:
    ///   - timeout: connect/read/write timeout; a blocking command's own
    ///     timeout must be shorter.
    ///   - connections: connections (each on its own thread) sharing the
    ///     queue of commands. Give blocking commands a client of one.
    ///   - measuresRoundTrips: whether each round trip is recorded as
    ///     `warmer_redis_round_trip_seconds`; false for a client reserved
    ///     for blocking commands, whose round trips are mostly waiting.
    ///   - logger: where disconnections and reconnections are logged.
    public init(
        url: RedisURL, name: String = "redis", timeout: Duration = .seconds(10), connections: Int = 1,
        measuresRoundTrips: Bool = true, logger: Logger = Logger(label: "warmer.redis")
    ) {
        self.url = url
        let requests = ThreadInbox<Request>()
        self.requests = requests
        var logger = logger
        logger[metadataKey: "client"] = .string(name)
        logger[metadataKey: "redis"] = .string(url.description)
        let health = ConnectionHealth(logger: logger)
        let route = RedisClusterRoute(seeds: url.nodes, logger: logger)
        for index in 0..<max(1, connections) {
            // Each connection's thread sends every request queued since its last round trip as one pipeline.
            DedicatedThread.start(named: DedicatedThread.name(name, number: index)) {
                let connection = RedisConnection(url: url, timeout: timeout, route: route)
                requests.consume { batch in
                    let start = ContinuousClock.now
                    health.record(Self.run(batch, on: connection))
                    if measuresRoundTrips { RedisMetrics.recordRoundTrip(.now - start) }
                }
            }
        }
    }

    deinit {
        requests.close()
    }

    /// Sends one command, e.g. `["HGETALL", key]`.
    /// - Throws: `RedisError.server` for an error reply, `.unreachable` when no
    ///   connection could be made, `.connection` when it broke meanwhile.
    @discardableResult
    public func send(_ command: [String]) async throws(RedisError) -> RedisReply {
        try Self.onlyReply(of: try await pipeline([command]))
    }

    /// The reply of a one-command request; an error reply thrown.
    private static func onlyReply(of replies: [RedisReply]) throws(RedisError) -> RedisReply {
        guard let reply = replies.first else { throw .unexpectedReply("no reply") }
        if case .error(let message) = reply { throw .server(message) }
        return reply
    }

    /// Sends commands back to back and returns their replies in order.
    /// Error replies are returned as `.error`, not thrown.
    public func pipeline(_ commands: [[String]]) async throws(RedisError) -> [RedisReply] {
        guard !commands.isEmpty else { return [] }
        let result = await withCheckedContinuation { continuation in
            post(Request(commands: commands, reply: .caller(continuation)))
        }
        return try result.get()
    }

    /// Sends one blocking command (`BLMOVE … timeout`, `XREAD BLOCK …`) that
    /// the caller stops waiting for when its task is cancelled: it then
    /// returns `.null`, as the command does when its own timeout passes.
    ///
    /// The command itself still runs to its end on the connection (which
    /// serves nothing else meanwhile) and its reply is dropped. Use it only
    /// where nothing is lost with that reply: a read, or a move into a list
    /// that the next reader drains. A graceful stop then ends at once rather
    /// than after each loop's longest wait.
    /// - Throws: as `send`.
    public func sendBlocking(_ command: [String]) async throws(RedisError) -> RedisReply {
        let handoff = AbandonableReply()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard handoff.wait(with: continuation) else { return }
                post(Request(commands: [command], reply: .abandonable(handoff)))
            }
        } onCancel: {
            handoff.resume(with: .success([.null]))
        }
        return try Self.onlyReply(of: try result.get())
    }

    private func post(_ request: Request) {
        if requests.post(request) == .refused {
            request.reply.resume(with: .failure(.connection("client closed")))
        }
    }

    // MARK: The client's thread

    private struct Request: Sendable {
        let commands: [[String]]
        let reply: Reply
    }

    /// Where a request's replies go.
    private enum Reply: Sendable {
        /// The caller, who waits for them whatever happens.
        case caller(CheckedContinuation<Result<[RedisReply], RedisError>, Never>)
        /// The caller until its task is cancelled (`sendBlocking`), then nobody.
        case abandonable(AbandonableReply)

        func resume(with result: Result<[RedisReply], RedisError>) {
            switch self {
            case .caller(let continuation): continuation.resume(returning: result)
            case .abandonable(let handoff): handoff.resume(with: result)
            }
        }
    }

    /// Sends `batch` and answers its requests; returns the error, if any.
    private static func run(_ batch: [Request], on connection: RedisConnection) -> RedisError? {
        do {
            let replies = try connection.execute(batch.flatMap { $0.commands })
            var offset = 0
            for request in batch {
                let count = request.commands.count
                request.reply.resume(with: .success(Array(replies[offset..<offset + count])))
                offset += count
            }
            return nil
        } catch {
            for request in batch { request.reply.resume(with: .failure(error)) }
            return error
        }
    }
}
