import Foundation

/// Where a Redis server is: `redis://[[user]:password@]host[:port][/db]`.
public struct RedisURL: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address.
    public var host: String
    /// TCP port. Default: 6379.
    public var port: Int
    /// ACL user name, if any.
    public var username: String?
    /// Password, if any.
    public var password: String?
    /// Database index. Default: 0.
    public var database: Int

    /// The default, `redis://127.0.0.1:6379`.
    public static let localDefault = RedisURL(host: "127.0.0.1", port: 6379)

    /// Creates an endpoint.
    public init(host: String, port: Int = 6379, username: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// Parses a `redis://` URL; the port, when given, is 1-65535.
    public init(parsing text: String) throws(RedisError) {
        guard let components = URLComponents(string: text), components.scheme == "redis",
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
        self.init(
            host: host, port: components.port ?? 6379,
            username: components.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding },
            password: components.password?.removingPercentEncoding,
            database: database
        )
    }

    /// The URL without its password.
    public var description: String {
        let auth = password == nil ? "" : "\(username ?? ""):***@"
        let db = database == 0 ? "" : "/\(database)"
        return "redis://\(auth)\(host):\(port)\(db)"
    }
}
