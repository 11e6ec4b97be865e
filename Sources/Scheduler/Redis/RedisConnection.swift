import CHiredis
import Foundation

/// One blocking hiredis connection.
///
/// Not thread-safe (hiredis contexts are not), and not `Sendable`: create it
/// on the thread that uses it and keep it there. `RedisClient` confines each
/// of its connections to a thread of its own; a caller that must not depend
/// on Swift's cooperative pool (the worker's lease keeper) uses one directly
/// from its own thread. Commands are binary-safe argument vectors and go out
/// pipelined: all appended, then all replies read. Connects lazily, and
/// again on the next call after an error.
public final class RedisConnection {
    private let url: RedisURL
    private let timeout: Duration
    private var context: UnsafeMutablePointer<redisContext>?
    /// Whether a connection was made before: the next one made is a
    /// reconnection (`warmer_redis_reconnects_total`; failed attempts are not).
    private var hasConnected = false

    /// - Parameter timeout: connect, read and write timeout. Blocking commands
    ///   must finish within it.
    public init(url: RedisURL, timeout: Duration) {
        self.url = url
        self.timeout = timeout
    }

    deinit {
        disconnect()
    }

    var isConnected: Bool { context != nil }

    /// Connects, authenticates and selects the database.
    func connect() throws(RedisError) {
        disconnect()
        let interval = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        guard let context = redisConnectWithTimeout(url.host, Int32(url.port), interval) else {
            throw .unreachable("out of memory")
        }
        guard context.pointee.err == 0 else {
            let message = String(cString: warmer_redis_errstr(context))
            redisFree(context)
            throw .unreachable("\(url.host):\(url.port): \(message)")
        }
        _ = redisSetTimeout(context, interval)
        _ = redisEnableKeepAlive(context)
        self.context = context
        if hasConnected { RedisMetrics.countReconnect() }
        hasConnected = true

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
            replies = try execute(setup)
        } catch .connection(let message) {
            throw .unreachable(message) // none of the caller's commands went out
        }
        for reply in replies {
            if case .error(let message) = reply {
                disconnect()
                throw .server(message)
            }
        }
    }

    func disconnect() {
        if let context { redisFree(context) }
        context = nil
    }

    /// Sends `commands` in one pipeline and returns one reply per command.
    /// Error replies come back as `.error`; a broken connection throws and disconnects.
    public func execute(_ commands: [[String]]) throws(RedisError) -> [RedisReply] {
        if context == nil { try connect() }
        guard let context else { throw .unreachable("not connected") }
        for command in commands {
            append(command, to: context)
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else {
                var message = context.pointee.err != 0 ? String(cString: warmer_redis_errstr(context)) : "no reply"
                // hiredis reports a read that outlasted the timeout as EAGAIN's text.
                if message == String(cString: strerror(EAGAIN)) {
                    message = "no reply from \(url.host):\(url.port): timed out after \(timeout.components.seconds) s"
                }
                disconnect()
                throw .connection(message)
            }
            let reply = raw.assumingMemoryBound(to: redisReply.self)
            replies.append(Self.convert(reply))
            freeReplyObject(raw)
        }
        return replies
    }

    /// Appends one command to the output buffer. hiredis copies the arguments.
    private func append(_ command: [String], to context: UnsafeMutablePointer<redisContext>) {
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
