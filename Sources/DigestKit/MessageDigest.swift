import CCrypto
import Foundation

/// A message digest (SHA-1 or SHA-256) computed by OpenSSL's libcrypto,
/// whole or in pieces.
///
/// Warmer hashes for names, not for secrets: a script's SHA-1 (how Redis
/// names it for `EVALSHA`), the disk cache's file names, an intake
/// document's identity, entity tags, and bearer tokens before a
/// constant-time comparison. libcrypto is on every machine Warmer runs on
/// already (libcurl links it for HTTPS), so this thin wrapper replaces
/// swift-crypto: that package builds its own copy of BoringSSL, about a
/// sixth of a cold build, for two hash functions (docs/architecture.md).
///
/// ```swift
/// let name = MessageDigest.sha256(Data(key.utf8)).hexString
///
/// var digest = MessageDigest(.sha256)
/// digest.update(chunk)
/// let bytes = digest.finalize()
/// ```
package struct MessageDigest: ~Copyable {
    /// The hash functions Warmer uses.
    package enum Algorithm: Sendable {
        /// SHA-1: 20 bytes. Only where a peer names things by it (Redis scripts).
        case sha1
        /// SHA-256: 32 bytes.
        case sha256

        /// libcrypto's description of the function (a static object).
        fileprivate var evp: OpaquePointer {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            }
        }
    }

    /// The `EVP_MD_CTX`, owned by this value.
    private let context: OpaquePointer

    /// A digest of nothing yet.
    package init(_ algorithm: Algorithm) {
        // Only a failed allocation can fail here: treat it as running out of memory.
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        guard EVP_DigestInit_ex(context, algorithm.evp, nil) == 1 else {
            EVP_MD_CTX_free(context)
            fatalError("EVP_DigestInit_ex failed for \(algorithm)")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `data` to what is hashed.
    package mutating func update(_ data: some DataProtocol) {
        for region in data.regions {
            region.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
                let result = EVP_DigestUpdate(context, base, bytes.count)
                precondition(result == 1, "EVP_DigestUpdate failed")
            }
        }
    }

    /// The digest of everything added.
    package consuming func finalize() -> [UInt8] {
        var length: UInt32 = 0
        var bytes = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        let result = EVP_DigestFinal_ex(context, &bytes, &length)
        precondition(result == 1, "EVP_DigestFinal_ex failed")
        bytes.removeSubrange(Int(length)...)
        return bytes
    }

    /// The SHA-256 digest of `data` (32 bytes).
    package static func sha256(_ data: some DataProtocol) -> [UInt8] {
        var digest = MessageDigest(.sha256)
        digest.update(data)
        return digest.finalize()
    }

    /// The SHA-1 digest of `data` (20 bytes).
    package static func sha1(_ data: some DataProtocol) -> [UInt8] {
        var digest = MessageDigest(.sha1)
        digest.update(data)
        return digest.finalize()
    }
}
