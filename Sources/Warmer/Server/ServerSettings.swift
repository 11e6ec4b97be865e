import Foundation

/// What `warmer serve` runs with, read from its resolved settings
/// (docs/http-api.md, "Running it", "Security" and "Limits").
struct ServerSettings: Sendable {
    /// The address it listens on.
    var host = "127.0.0.1"
    /// The port it listens on.
    var port = 8080
    /// Who may read and who may change.
    var tokens = BearerTokens(read: [], admin: [])
    /// Origins allowed to call from a browser page; empty: CORS off.
    var corsOrigins: [String] = []
    /// The largest request body, in bytes.
    var maxBody = 8 << 20
    /// Server-Sent Event streams open at once.
    var maxEventStreams = 1000
    /// Time between keep-alive comments on an idle event stream.
    var keepAlive: Duration = .seconds(15)
    /// The largest header field and the largest header block, in bytes.
    var maxHeaderBytes = 16 << 10
    /// The most header fields in one request.
    var maxHeaderFields = 100
    /// How long a connection may sit idle, or take to send a whole request
    /// (headers and body): `RequestDeadlineHandler`.
    var requestTimeout: Duration = .seconds(30)
    /// Event streams one caller (a token, or a client address without tokens) may hold.
    var maxEventStreamsPerCaller = 100
    /// The queue the dashboard opens first.
    var defaultQueue = "default"
}

extension ResolvedSettings {
    /// `serve`'s settings.
    var serverSettings: ServerSettings {
        var server = ServerSettings()
        server.host = self[Settings.httpHost]
        server.port = self[Settings.httpPort] ?? 8080
        server.tokens = BearerTokens(read: self[Settings.readTokens], admin: self[Settings.adminTokens])
        server.corsOrigins = self[Settings.corsOrigins]
        server.maxBody = self[Settings.maxBody] << 20
        server.maxEventStreams = self[Settings.maxEventStreams]
        server.requestTimeout = .seconds(self[Settings.requestTimeout])
        server.maxEventStreamsPerCaller = self[Settings.maxEventStreamsPerToken]
        server.keepAlive = .seconds(self[Settings.eventKeepAlive])
        server.defaultQueue = queueName
        return server
    }
}
