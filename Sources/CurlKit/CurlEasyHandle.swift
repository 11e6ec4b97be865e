import CCurl
import Foundation

/// An owned libcurl easy handle, reused across transfers.
///
/// Reuse matters: an easy handle keeps its DNS and TLS session caches, and
/// handles attached to one multi handle share that multi's connection pool.
/// Confined to the curl thread.
final class CurlEasyHandle {
    let raw: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?

    init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
    }

    deinit {
        curl_slist_free_all(headerList)
        curl_easy_cleanup(raw)
    }

    /// Sets every option for `transfer`, whose context pointer the callbacks receive.
    func configure(for request: CurlTransferRequest, share: CurlShare, context: UnsafeMutableRawPointer) {
        curl_easy_reset(raw)
        curl_slist_free_all(headerList)
        headerList = nil

        let limits = request.limits
        _ = warmer_easy_setopt_string(raw, CURLOPT_URL, request.url)
        // Never let libcurl raise signals (timeouts would use SIGALRM) in a threaded process.
        _ = warmer_easy_setopt_long(raw, CURLOPT_NOSIGNAL, 1)
        _ = warmer_easy_setopt_string(raw, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = warmer_easy_setopt_string(raw, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = warmer_easy_setopt_long(raw, CURLOPT_FOLLOWLOCATION, 1)
        _ = warmer_easy_setopt_long(raw, CURLOPT_MAXREDIRS, limits.maximumRedirects)
        // An empty proxy disables proxies taken from the environment (http_proxy and friends).
        _ = warmer_easy_setopt_string(raw, CURLOPT_PROXY, "")
        _ = warmer_easy_setopt_long(raw, CURLOPT_CONNECTTIMEOUT_MS, limits.connectTimeoutMilliseconds)
        _ = warmer_easy_setopt_long(raw, CURLOPT_TIMEOUT_MS, limits.totalTimeoutMilliseconds)
        _ = warmer_easy_setopt_long(raw, CURLOPT_LOW_SPEED_LIMIT, limits.lowSpeedLimitBytesPerSecond)
        _ = warmer_easy_setopt_long(raw, CURLOPT_LOW_SPEED_TIME, limits.lowSpeedTimeSeconds)
        _ = warmer_easy_setopt_off(raw, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maximumBodySize))
        _ = warmer_easy_setopt_string(raw, CURLOPT_USERAGENT, request.userAgent)
        _ = warmer_easy_setopt_long(raw, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // No CURLOPT_PIPEWAIT: it makes parallel transfers to an HTTP/1.1 host
        // queue behind one connection instead of opening their own.
        _ = warmer_easy_setopt_long(raw, CURLOPT_TCP_KEEPALIVE, 1)
        _ = warmer_easy_setopt_long(raw, CURLOPT_NOPROGRESS, 1)
        if let shared = share.raw {
            _ = warmer_easy_setopt_share(raw, shared)
        }
        _ = warmer_easy_setopt_long(raw, CURLOPT_DNS_CACHE_TIMEOUT, CurlShare.dnsCacheLifetimeSeconds)

        for header in request.headers {
            headerList = curl_slist_append(headerList, header)
        }
        if let headerList {
            _ = warmer_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, headerList)
        }

        _ = warmer_easy_setopt_data_callback(raw, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        _ = warmer_easy_setopt_pointer(raw, CURLOPT_HEADERDATA, context)
        _ = warmer_easy_setopt_data_callback(raw, CURLOPT_WRITEFUNCTION, curlWriteCallback)
        _ = warmer_easy_setopt_pointer(raw, CURLOPT_WRITEDATA, context)
        // The SSRF guard: every connection, redirects included, is checked on
        // the address DNS resolved to, just before its socket is opened.
        _ = warmer_easy_setopt_opensocket_callback(raw, curlOpenSocketCallback)
        _ = warmer_easy_setopt_pointer(raw, CURLOPT_OPENSOCKETDATA, context)
    }

    /// The last URL the transfer used, after redirects.
    var effectiveURL: String? {
        var pointer: UnsafePointer<CChar>?
        guard warmer_easy_getinfo_string(raw, CURLINFO_EFFECTIVE_URL, &pointer) == CURLE_OK,
              let pointer else { return nil }
        return String(cString: pointer)
    }
}

/// libcurl's header callback: one call per header line, context = the transfer.
private let curlHeaderCallback: warmer_curl_data_callback = { pointer, size, count, context in
    guard let pointer, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return transfer.receiveHeader(UnsafeRawBufferPointer(start: pointer, count: length)) ? length : 0
}

/// libcurl's write callback: one call per body chunk, context = the transfer.
private let curlWriteCallback: warmer_curl_data_callback = { pointer, size, count, context in
    guard let pointer, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return transfer.receiveBody(UnsafeRawBufferPointer(start: pointer, count: length)) ? length : 0
}

/// libcurl's open-socket callback: checks the resolved address against the
/// transfer's `mayConnect`, then opens the socket as libcurl would.
private let curlOpenSocketCallback: warmer_curl_opensocket_callback = { context, _, address in
    guard let context, let address else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    guard let bytes = addressBytes(of: address), transfer.mayConnect(to: bytes) else { return CURL_SOCKET_BAD }
    return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
}

/// The address (network-order bytes, 4 or 16) of a socket address libcurl
/// is about to connect to; `nil` for any other family.
///
/// `curl_sockaddr.addr` is declared as a 16-byte `struct sockaddr`, but
/// libcurl stores the whole `sockaddr_in6` (28 bytes) from there on, in
/// storage it sized for it; `addrlen` says how many bytes are valid. So
/// the address is read from the field's offset, bounded by `addrlen` —
/// never through the 16-byte field itself.
private func addressBytes(of address: UnsafeMutablePointer<curl_sockaddr>) -> [UInt8]? {
    guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) else { return nil }
    let start = UnsafeRawPointer(address) + offset
    let length = Int(address.pointee.addrlen)
    switch address.pointee.family {
    case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
        let v4 = start.loadUnaligned(as: sockaddr_in.self)
        return withUnsafeBytes(of: v4.sin_addr) { Array($0) }
    case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
        let v6 = start.loadUnaligned(as: sockaddr_in6.self)
        return withUnsafeBytes(of: v6.sin6_addr) { Array($0) }
    default:
        return nil
    }
}
