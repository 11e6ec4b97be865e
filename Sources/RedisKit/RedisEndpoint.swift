/// One Redis server's address: a host and a TCP port.
///
/// A `RedisURL` names one or more of them (a cluster's seed nodes); a
/// cluster's redirect names the node that owns a slot.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address (an IPv6 address without brackets).
    public var host: String
    /// TCP port.
    public var port: Int

    /// Creates an endpoint.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses the `host:port` of a cluster redirect (`127.0.0.1:7001`,
    /// `::1:7001`, `[::1]:7001`; the port follows the last colon). An empty
    /// host, or `?` (a node that does not know its own address), means the
    /// host of the node that answered: `relativeTo`'s.
    init?(redirectAddress text: Substring, relativeTo node: RedisEndpoint) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65_535).contains(port) else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        self.init(host: host.isEmpty || host == "?" ? node.host : String(host), port: port)
    }

    /// `host:port`, with an IPv6 address in brackets.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
