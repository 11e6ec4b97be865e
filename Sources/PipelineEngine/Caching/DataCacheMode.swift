/// How the disk cache treats HTTP caching headers.
public enum DataCacheMode: String, Sendable, Hashable, CaseIterable {
    /// Store every response and serve it for ever, ignoring HTTP caching
    /// headers: for immutable URLs (content-addressed CDNs), as Nuke's
    /// aggressive `DataCache`. Nothing is revalidated.
    case aggressive
    /// Follow RFC 9111 for a shared cache: store the response's metadata
    /// beside its data, serve an entry only while it is fresh, revalidate a
    /// stale one (`If-None-Match` / `If-Modified-Since`; a 304 refreshes it
    /// without a download), never store `no-store` or `private` responses.
    case http
}
