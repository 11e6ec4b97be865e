import DigestKit
import HTTPTypes
import Hummingbird

/// The live dashboard (docs/dashboard.md): its page at `/`, `/ui` and
/// `/ui/`, its files at `/ui/NAME`, all compiled into the binary
/// (`DashboardAsset`). They need no token (they hold no data; the page asks
/// for one before its first read). Each answer carries an `ETag` (the
/// file's digest), so a browser revalidates instead of downloading again.
struct DashboardRoutes {
    /// The queue the page opens when the address names none (`--queue`).
    let defaultQueue: String

    func add(to router: Router<ServerContext>) {
        // ("ui" serves "/ui/" too: the router ignores a trailing slash.)
        for path in ["/", "ui"] {
            router.get(RouterPath(path)) { request, _ in
                // The page reads its queue from `?queue=`: name the configured one.
                if request.uri.queryParameters["queue"] == nil, defaultQueue != "default" {
                    return Response(status: .found, headers: [.location: "/?queue=" + defaultQueue])
                }
                return try Self.answer(request, name: "")
            }
        }
        router.get("ui/:asset") { request, context in
            try Self.answer(request, name: context.pathParameter("asset"))
        }
    }

    /// File `name` with its content type and tag, or a 304 when the
    /// request's `If-None-Match` has the tag.
    private static func answer(_ request: Request, name: String) throws -> Response {
        guard let asset = DashboardAsset.named(name) else { throw Problem.notFound(request.uri.path) }
        let tag = tags[name.isEmpty ? DashboardAsset.page : name] ?? ""
        if let given = request.headers[.ifNoneMatch], given.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag }) {
            var headers = securityHeaders
            headers[.eTag] = tag
            return Response(status: .notModified, headers: headers)
        }
        var headers = securityHeaders
        headers[.contentType] = asset.contentType
        headers[.eTag] = tag
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    /// What every dashboard answer carries (docs/dashboard.md, "Security"):
    /// a Content-Security-Policy that runs only the server's own scripts and
    /// styles, talks only to the server, and lets no page frame the dashboard
    /// (`frame-ancestors 'none'`, and `X-Frame-Options` for older browsers).
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: contentSecurityPolicy, .xFrameOptions: "DENY", .contentTypeOptions: "nosniff",
        .referrerPolicy: "no-referrer",
    ]

    /// The dashboard's Content-Security-Policy.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
        "font-src 'self'", "manifest-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    /// Each file's strong tag: its SHA-256, computed once.
    private static let tags: [String: String] = DashboardAsset.all.mapValues { asset in
        "\"" + MessageDigest.sha256(asset.bytes).prefix(16).hexString + "\""
    }
}
