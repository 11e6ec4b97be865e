/// Which addresses downloads may connect to: the SSRF guard.
///
/// By default a download may not reach the network Warmer runs in: loopback,
/// private (RFC 1918), link-local (169.254.0.0/16, including cloud metadata
/// at 169.254.169.254), CGNAT, multicast, unspecified and reserved
/// addresses, in IPv4 and IPv6, and IPv6 forms that carry such an IPv4
/// address (`::ffff:127.0.0.1`, NAT64). The check runs on the address libcurl
/// is about to connect to, after DNS resolution and for every redirect, so
/// neither a DNS name pointing inside nor a redirect can get around it.
public struct AddressPolicy: Sendable, Hashable {
    /// Allow every private and special address (on-premise origins).
    public var allowsPrivateNetworks = false
    /// Host names (as written in URLs, lowercased) whose connections are
    /// allowed wherever they resolve, e.g. `127.0.0.1` for a local origin.
    public var allowedHosts: Set<String> = []
    /// Networks always allowed, e.g. `10.20.0.0/16`.
    public var allowedNetworks: [IPNetwork] = []

    /// The default: public addresses only.
    public init() {}

    /// Whether a connection to `address`, for a URL whose host is `host`, is allowed.
    public func permits(_ address: IPAddress, host: String?) -> Bool {
        if allowsPrivateNetworks { return true }
        if let host, allowedHosts.contains(host.lowercased()) { return true }
        if allowedNetworks.contains(where: { $0.contains(address) }) { return true }
        return !Self.isSpecial(address)
    }

    /// Whether `address` is not a public unicast address.
    static func isSpecial(_ address: IPAddress) -> Bool {
        if let embedded = address.embeddedIPv4 { return isSpecial(embedded) }
        let blocks = address.isIPv4 ? specialIPv4 : specialIPv6
        return blocks.contains { $0.contains(address) }
    }

    private static let specialIPv4: [IPNetwork] = [
        "0.0.0.0/8",        // "this network", unspecified
        "10.0.0.0/8",       // RFC 1918
        "100.64.0.0/10",    // CGNAT
        "127.0.0.0/8",      // loopback
        "169.254.0.0/16",   // link-local, cloud metadata
        "172.16.0.0/12",    // RFC 1918
        "192.0.0.0/24",     // IETF protocol assignments
        "192.168.0.0/16",   // RFC 1918
        "198.18.0.0/15",    // benchmarking
        "224.0.0.0/4",      // multicast
        "240.0.0.0/4",      // reserved, broadcast
    ].map { IPNetwork($0)! }

    private static let specialIPv6: [IPNetwork] = [
        "::/128",           // unspecified
        "::1/128",          // loopback
        "fc00::/7",         // unique local
        "fe80::/10",        // link-local
        "ff00::/8",         // multicast
        "100::/64",         // discard
    ].map { IPNetwork($0)! }
}
