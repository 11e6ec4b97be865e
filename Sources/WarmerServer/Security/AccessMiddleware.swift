import HTTPTypes
import Hummingbird

/// Checks every request's bearer token against the scope its route needs
/// (docs/http-api.md, "Security"): reads (GET, HEAD) need a read or admin
/// token, changes (POST, PATCH, DELETE) an admin token. The health probes,
/// the OpenAPI document and the dashboard's page and assets need none (the
/// page asks for a token before it reads). Without configured tokens every
/// request passes: the server then listens on loopback only.
struct AccessMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    let tokens: BearerTokens

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        guard !tokens.isEmpty else {
            context.scope = .admin
            return try await next(request, context)
        }
        if let token = Self.bearerToken(in: request.headers) {
            context.scope = tokens.scope(of: token)
            if context.scope != .none { context.caller = "token " + BearerTokens.callerKey(of: token) }
        }
        if Self.isPublic(request.uri.path) { return try await next(request, context) }
        let needed: AccessScope = [.get, .head].contains(request.method) ? .read : .admin
        guard context.scope != .none else { throw Problem.unauthorized }
        guard context.scope >= needed else { throw Problem.forbidden }
        return try await next(request, context)
    }

    /// The token of `Authorization: Bearer TOKEN` (the scheme in any case).
    static func bearerToken(in headers: HTTPFields) -> Substring? {
        guard let value = headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].drop { $0 == " " }
    }

    /// Whether `path` is served without a token.
    static func isPublic(_ path: String) -> Bool {
        ["/healthz", "/readyz", "/openapi.yaml", "/", "/ui", "/ui/"].contains(path) || path.hasPrefix("/ui/")
    }
}
