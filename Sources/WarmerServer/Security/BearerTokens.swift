import DigestKit
import Foundation

/// The configured bearer tokens (`read-tokens`, `admin-tokens`) and the
/// scope each grants.
///
/// A presented token is compared with every configured one in constant
/// time: both are hashed with SHA-256 first (so their lengths do not show
/// either), and every digest is compared in full, whichever matches. The
/// tokens themselves are never logged or shown; only their digests are kept.
package struct BearerTokens: Sendable {
    private let read: [[UInt8]]
    private let admin: [[UInt8]]

    package init(read: [String], admin: [String]) {
        self.read = read.map(Self.digest)
        self.admin = admin.map(Self.digest)
    }

    /// The SHA-256 digest of `token`'s UTF-8.
    private static func digest(_ token: some StringProtocol) -> [UInt8] {
        MessageDigest.sha256(Data(token.utf8))
    }

    /// Whether any token is configured: without one the API is open, and
    /// the server listens on loopback only (`ListenAddress`).
    package var isEmpty: Bool { read.isEmpty && admin.isEmpty }

    /// The scope `token` grants: `.admin`, `.read` or `.none`.
    func scope(of token: Substring) -> AccessScope {
        let digest = Self.digest(token)
        var isAdmin = false
        var isReader = false
        for known in admin where Self.equal(known, digest) { isAdmin = true }
        for known in read where Self.equal(known, digest) { isReader = true }
        return isAdmin ? .admin : isReader ? .read : .none
    }

    /// A name for the caller presenting `token`, for per-caller limits: the
    /// hex of its digest's first 16 bytes (never the token itself).
    static func callerKey(of token: Substring) -> String {
        digest(token).prefix(16).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// Whether two digests are equal, looking at every byte.
    private static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
