import Foundation

/// Where `warmer serve` may listen: anywhere once tokens protect the API,
/// only on loopback without them (docs/http-api.md, "Security").
package enum ListenAddress {
    /// Why `host` may not be listened on, or `nil`.
    package static func problem(host: String, hasTokens: Bool) -> String? {
        guard !hasTokens, !isLoopback(host) else { return nil }
        return "--http-host \(host) is not a loopback address, and no read-tokens or admin-tokens are configured: "
            + "set WARMER_READ_TOKENS / WARMER_ADMIN_TOKENS (or the config file's read-tokens, admin-tokens) "
            + "before serving beyond this machine"
    }

    /// Whether `host` names only this machine: `localhost`, 127.0.0.0/8 or ::1.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }
}
