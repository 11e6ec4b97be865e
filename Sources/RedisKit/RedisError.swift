/// Why a Redis command failed.
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not a valid `redis://` URL.
    case invalidURL(String)
    /// No connection could be made: nothing was sent. The client tries to
    /// connect again on the next command.
    case unreachable(String)
    /// The connection broke with commands in flight (they may or may not
    /// have run); the client reconnects on the next command.
    case connection(String)
    /// Redis answered with an error reply.
    case server(String)
    /// The reply did not have the expected shape.
    case unexpectedReply(String)

    /// The error replies that mean "not now": Redis did not run the command
    /// and may well run it a moment later. `LOADING` (loading its data after
    /// a start), `BUSY` (a script or function runs past its time limit),
    /// `TRYAGAIN` (a cluster slot is migrating), `MASTERDOWN` (a replica
    /// lost its master), `CLUSTERDOWN` (a cluster without a master for
    /// some slot, e.g. while a replica takes over), and a cluster redirect
    /// (`MOVED`, `ASK`) still standing after the connection followed
    /// `RedisConnection.maximumRedirects` of them (the cluster is being
    /// reconfigured).
    public static let transientReplyCodes: Set<String> = [
        "LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN", "MOVED", "ASK",
    ]

    /// Whether the same command may succeed if sent again later: Redis is
    /// unreachable, the connection broke, or the reply was one of
    /// `transientReplyCodes`.
    public var isTransient: Bool {
        switch self {
        case .unreachable, .connection: true
        case .server: isTransientReply
        case .invalidURL, .unexpectedReply: false
        }
    }

    /// Whether Redis certainly did not run the command: no connection could
    /// be made, or the reply was one of `transientReplyCodes`. Such a
    /// command can be sent again even when running it twice would not be
    /// harmless (a broken connection leaves that unknown).
    public var didNotRun: Bool {
        switch self {
        case .unreachable: true
        case .server: isTransientReply
        case .invalidURL, .connection, .unexpectedReply: false
        }
    }

    /// Whether this is an error reply whose code (its first word) is one of `transientReplyCodes`.
    private var isTransientReply: Bool {
        guard case .server(let message) = self else { return false }
        let code = message.prefix { $0 != " " }
        return Self.transientReplyCodes.contains(String(code))
    }

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .invalidURL(let url): "Invalid Redis URL: \(url)"
        case .unreachable(let message): "Redis connection failed: \(message)"
        case .connection(let message): "Redis connection failed: \(message)"
        case .server(let message): "Redis error: \(message)"
        case .unexpectedReply(let message): "Unexpected Redis reply: \(message)"
        }
    }
}
