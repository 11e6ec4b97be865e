import Hummingbird

/// CORS for the configured origins only (`cors-origins`; off when none):
/// a request from one of them gets Hummingbird's CORS answer (preflights
/// included), any other is served without CORS headers, so that a browser
/// page from elsewhere cannot read the answer.
struct AllowedOriginsMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    private let origins: Set<String>
    private let cors = CORSMiddleware<ServerContext>(
        allowOrigin: .originBased, allowHeaders: [.accept, .authorization, .contentType, .lastEventID],
        allowMethods: [.get, .head, .post, .patch, .delete, .options], exposedHeaders: ["Location", "ETag"],
        maxAge: .seconds(600))

    init(origins: [String]) {
        self.origins = Set(origins)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], origins.contains(origin) else { return try await next(request, context) }
        return try await cors.handle(request, context: context, next: next)
    }
}
