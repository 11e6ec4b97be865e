import DigestKit
import Foundation
import WarmerSupport

/// A Lua script run with EVALSHA, loaded on first use and again after a
/// Redis restart (NOSCRIPT).
package struct RedisScript: Sendable {
    /// The Lua source, sent with EVAL when Redis does not know the script.
    package let source: String
    /// The source's SHA-1 in hex, the name EVALSHA calls it by.
    package let sha1: String

    /// A script of `source`; nothing is sent until it first runs.
    package init(_ source: String) {
        self.source = source
        self.sha1 = MessageDigest.sha1(Data(source.utf8)).hexString
    }

    /// Runs the script with `keys` and `arguments`.
    package func run(on client: RedisClient, keys: [String], arguments: [String]) async throws(RedisError) -> RedisReply {
        let tail = [String(keys.count)] + keys + arguments
        do {
            return try await client.send(["EVALSHA", sha1] + tail)
        } catch .server(let message) where message.hasPrefix("NOSCRIPT") {
            return try await client.send(["EVAL", source] + tail)
        }
    }

    /// Runs the script with `keys` and `arguments` on `connection`, blocking
    /// the calling thread (see `RedisConnection`).
    package func run(on connection: RedisConnection, keys: [String], arguments: [String]) throws(RedisError) -> RedisReply {
        let tail = [String(keys.count)] + keys + arguments
        var reply = try Self.only(connection.execute([["EVALSHA", sha1] + tail]))
        if case .error(let message) = reply, message.hasPrefix("NOSCRIPT") {
            reply = try Self.only(connection.execute([["EVAL", source] + tail]))
        }
        if case .error(let message) = reply { throw .server(message) }
        return reply
    }

    private static func only(_ replies: [RedisReply]) throws(RedisError) -> RedisReply {
        guard let reply = replies.first else { throw .unexpectedReply("no reply") }
        return reply
    }
}
