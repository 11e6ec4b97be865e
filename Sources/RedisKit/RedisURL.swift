import Foundation

/// Where a Redis server is: `redis://[[user]:password@]host[:port][/db]`.
///
/// For a Redis Cluster, more seed nodes may follow the first one, separated
/// by commas: `redis://:secret@10.0.0.5:7000,10.0.0.6:7000,10.0.0.7:7000`.
/// Any node will do (redirects lead to the node serving a queue); the others
/// are where connections start again when the nodes known so far are gone.
/// The credentials and database apply to every node.
public struct RedisURL: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address of the first node.
    public var host: String
    /// TCP port of the first node. Default: 6379.
    public var port: Int
    /// More seed nodes of a cluster, after the first one. Default: none.
    public var additionalNodes: [RedisEndpoint]
    /// ACL user name, if any.
    public var username: String?
    /// Password, if any.
    public var password: String?
    /// Database index. Default: 0.
    public var database: Int

    /// The default, `redis://127.0.0.1:6379`.
    public static let localDefault = RedisURL(host: "127.0.0.1", port: 6379)

    /// Creates an endpoint.
    public init(
        host: String, port: Int = 6379, additionalNodes: [RedisEndpoint] = [], username: String? = nil,
        password: String? = nil, database: Int = 0
    ) {
        self.host = host
        self.port = port
        self.additionalNodes = additionalNodes
        self.username = username
        self.password = password
        self.database = database
    }

    /// Every node the URL names, first one first.
    public var nodes: [RedisEndpoint] {
        [RedisEndpoint(host: host, port: port)] + additionalNodes
    }

    /// Parses a `redis://` URL; each port, when given, is 1-65535.
    public init(parsing text: String) throws(RedisError) {
        let (first, others) = try Self.splitNodes(text)
        guard let components = URLComponents(string: first), components.scheme == "redis",
              let host = components.host, !host.isEmpty, (1...65_535).contains(components.port ?? 6379) else {
            throw .invalidURL(text)
        }
        let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let database: Int
        if path.isEmpty {
            database = 0
        } else if let index = Int(path), index >= 0 {
            database = index
        } else {
            throw .invalidURL(text)
        }
        var additionalNodes: [RedisEndpoint] = []
        for node in others {
            guard let components = URLComponents(string: "redis://\(node)"), let host = components.host, !host.isEmpty,
                  components.user == nil, components.path.isEmpty, components.query == nil,
                  (1...65_535).contains(components.port ?? 6379) else {
                throw .invalidURL(text)
            }
            additionalNodes.append(RedisEndpoint(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
                                                 port: components.port ?? 6379))
        }
        self.init(
            host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: components.port ?? 6379,
            additionalNodes: additionalNodes,
            username: components.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding },
            password: components.password?.removingPercentEncoding,
            database: database
        )
    }

    /// Splits `redis://auth@a:1,b:2/db` into `redis://auth@a:1/db` and `["b:2"]`.
    private static func splitNodes(_ text: String) throws(RedisError) -> (first: String, others: [String]) {
        guard let schemeEnd = text.range(of: "://") else { return (text, []) }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostsStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let hosts = authority[hostsStart...].split(separator: ",", omittingEmptySubsequences: false)
        guard hosts.count > 1 else { return (text, []) }
        guard hosts.allSatisfy({ !$0.isEmpty }) else { throw .invalidURL(text) }
        let first = String(text[..<hostsStart]) + hosts[0] + String(rest[authorityEnd...])
        return (first, hosts.dropFirst().map(String.init))
    }

    /// The URL without its password.
    public var description: String {
        let auth = password == nil ? "" : "\(username ?? ""):***@"
        let db = database == 0 ? "" : "/\(database)"
        let hosts = nodes.map(\.description).joined(separator: ",")
        return "redis://\(auth)\(hosts)\(db)"
    }
}
