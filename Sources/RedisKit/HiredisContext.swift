import CHiredis
import Foundation
import WarmerSupport

/// One open hiredis connection to one node, authenticated and on the URL's
/// database: the part of `RedisConnection` that touches hiredis.
///
/// Not thread-safe and not `Sendable`, like the connection that owns it.
/// Freed when released.
final class HiredisContext {
    /// The node it is connected to.
    let endpoint: RedisEndpoint
    private let timeout: Duration
    private let context: UnsafeMutablePointer<redisContext>

    /// Connects to `endpoint`, then authenticates and selects the database
    /// with `url`'s credentials and index.
    /// - Throws: `.unreachable` when no connection could be made (nothing
    ///   was sent), `.server` when AUTH or SELECT was refused.
    init(endpoint: RedisEndpoint, url: RedisURL, timeout: Duration) throws(RedisError) {
        let interval = timeout.timeValue
        guard let context = redisConnectWithTimeout(endpoint.host, Int32(endpoint.port), interval) else {
            throw .unreachable("out of memory")
        }
        guard context.pointee.err == 0 else {
            let message = String(cString: warmer_redis_errstr(context))
            redisFree(context)
            throw .unreachable("\(endpoint): \(message)")
        }
        _ = redisSetTimeout(context, interval)
        _ = redisEnableKeepAlive(context)
        self.endpoint = endpoint
        self.timeout = timeout
        self.context = context

        var setup: [[String]] = []
        if let password = url.password {
            setup.append(url.username.map { ["AUTH", $0, password] } ?? ["AUTH", password])
        }
        if url.database != 0 { setup.append(["SELECT", String(url.database)]) }
        guard !setup.isEmpty else { return }
        // A refused AUTH or SELECT (WRONGPASS, NOAUTH…) is a server error,
        // not a reason to wait: only `LOADING` and the like are transient.
        let replies: [RedisReply]
        do {
            replies = try pipeline(setup)
        } catch .connection(let message) {
            throw .unreachable(message) // none of the caller's commands went out
        }
        for reply in replies {
            if case .error(let message) = reply { throw .server(message) }
        }
    }

    deinit {
        redisFree(context)
    }

    /// Sends `commands` in one pipeline and returns one reply per command.
    /// Error replies come back as `.error`; a broken connection throws
    /// `.connection` (the context is unusable then).
    func pipeline(_ commands: [[String]]) throws(RedisError) -> [RedisReply] {
        for command in commands {
            append(command)
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else {
                var message = context.pointee.err != 0 ? String(cString: warmer_redis_errstr(context)) : "no reply"
                // hiredis reports a read that outlasted the timeout as EAGAIN's text.
                if message == String(cString: strerror(EAGAIN)) {
                    message = "no reply from \(endpoint): timed out after \(timeout.components.seconds) s"
                }
                throw .connection(message)
            }
            let reply = raw.assumingMemoryBound(to: redisReply.self)
            replies.append(Self.convert(reply))
            freeReplyObject(raw)
        }
        return replies
    }

    /// Appends one command to the output buffer. hiredis copies the arguments.
    private func append(_ command: [String]) {
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int] = []
        for argument in command {
            offsets.append(bytes.count)
            bytes.append(contentsOf: argument.utf8)
            lengths.append(argument.utf8.count)
        }
        // An argument vector of empty strings has no bytes; hiredis still needs valid pointers.
        if bytes.isEmpty { bytes.append(0) }
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var pointers: [UnsafePointer<CChar>?] = offsets.map {
                UnsafeRawPointer(base + $0).assumingMemoryBound(to: CChar.self)
            }
            _ = redisAppendCommandArgv(context, Int32(command.count), &pointers, &lengths)
        }
    }

    private static func convert(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        switch Int32(value.type) {
        case REDIS_REPLY_STRING, REDIS_REPLY_STATUS:
            return .string(string(value.str, length: value.len))
        case REDIS_REPLY_ERROR:
            return .error(string(value.str, length: value.len))
        case REDIS_REPLY_INTEGER:
            return .integer(Int(value.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(value.elements)
            for index in 0..<value.elements {
                if let element = value.element[index] { elements.append(convert(element)) }
            }
            return .array(elements)
        default:
            return .null
        }
    }

    private static func string(_ pointer: UnsafeMutablePointer<CChar>?, length: Int) -> String {
        guard let pointer else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }
}
