import Hummingbird
import NIOCore

/// What `warmer serve` knows about one request while it is handled: the
/// core context every Hummingbird request has, and the scope its bearer
/// token grants once `AccessMiddleware` has checked it.
struct ServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// What the caller may do; `.none` until `AccessMiddleware` has run.
    var scope: AccessScope = .none
    /// Who is calling, for per-caller limits: a digest of the bearer token
    /// once `AccessMiddleware` has checked it, else the client's address.
    var caller: String
    /// Completes when the request's connection closes: the client left, or
    /// the server closed it. Long answers (event streams) end then.
    let connectionClosed: EventLoopFuture<Void>

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        caller = "address " + (source.channel.remoteAddress?.ipAddress ?? "unknown")
        connectionClosed = source.channel.closeFuture
    }
}
