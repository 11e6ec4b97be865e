import CCurl

/// A libcurl share handle: the DNS cache and TLS session cache that every
/// transfer of one `CurlMultiLoop` uses.
///
/// Easy handles of one multi handle already share the multi's DNS cache;
/// the share makes the caches explicit, keeps TLS sessions (cheaper
/// reconnects to an HTTPS origin after its idle connection closed) and
/// survives any easy handle. Confined to the curl thread, like every handle
/// using it, so it needs no lock callbacks (libcurl requires them only when
/// handles using a share run on several threads).
final class CurlShare {
    /// How long a resolved address is reused: 5 minutes (libcurl's default
    /// is 60 s). Origins behind DNS load balancing still rotate, and a
    /// warming burst to one host resolves it once.
    static let dnsCacheLifetimeSeconds = 300

    /// The share handle; `nil` if libcurl could not create one (transfers
    /// then use the multi handle's own DNS cache).
    let raw: UnsafeMutableRawPointer?

    init() {
        raw = curl_share_init()
        if let raw {
            _ = warmer_share_setopt_long(raw, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
            _ = warmer_share_setopt_long(raw, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
        }
    }

    deinit {
        if let raw { curl_share_cleanup(raw) }
    }
}
