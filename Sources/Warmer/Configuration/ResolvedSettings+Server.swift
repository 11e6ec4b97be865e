import WarmerServer

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
