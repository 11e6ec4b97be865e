import Foundation

/// What `warmer serve` runs with, read from its resolved settings
/// (docs/http-api.md, "Running it", "Security" and "Limits").
package struct ServerSettings: Sendable {
    /// The address it listens on.
    package var host = "127.0.0.1"
    /// The port it listens on.
    package var port = 8080
    /// Who may read and who may change.
    package var tokens = BearerTokens(read: [], admin: [])
    /// Origins allowed to call from a browser page; empty: CORS off.
    package var corsOrigins: [String] = []
    /// The largest request body, in bytes.
    package var maxBody = 8 << 20
    /// Server-Sent Event streams open at once.
    package var maxEventStreams = 1000
    /// Time between keep-alive comments on an idle event stream.
    package var keepAlive: Duration = .seconds(15)
    /// The largest header field and the largest header block, in bytes.
    package var maxHeaderBytes = 16 << 10
    /// The most header fields in one request.
    package var maxHeaderFields = 100
    /// How long a connection may sit idle, or take to send a whole request
    /// (headers and body): `RequestDeadlineHandler`.
    package var requestTimeout: Duration = .seconds(30)
    /// Event streams one caller (a token, or a client address without tokens) may hold.
    package var maxEventStreamsPerCaller = 100
    /// The queue the dashboard opens first.
    package var defaultQueue = "default"

    /// The defaults: loopback, port 8080, no tokens.
    package init() {}
}
