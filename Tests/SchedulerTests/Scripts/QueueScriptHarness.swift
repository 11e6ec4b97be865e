import Foundation
@testable import RedisKit
import Testing
import TestSupport
@testable import Scheduler

/// Calls the Lua scripts directly on a queue of its own: the test writes the
/// state with plain commands, loads a script with SCRIPT LOAD, runs it with
/// EVALSHA (its declared keys, the queue context, its arguments) and reads
/// back the reply, the keys and the events.
struct QueueScriptHarness {
    let client: RedisClient
    let keys: QueueKeys

    /// The queue context every queue script starts with (context.lua): the
    /// prefix, stream lengths 1,000, retention 1 h, lease 30 s, 2 stalls,
    /// aging 60 s, 1,000 remembered completions, a group burst of 32 claims,
    /// Redis decoding every document, whole slices (no time budget).
    var context: [String] { [keys.prefix, "1000", "1000", "3600", "30000", "2", "60000", "1000", "32", "", "0"] }
    /// The context's lease and aging, in ms.
    let leaseMs = 30_000, agingMs = 60_000

    init() throws {
        client = try makeClient()
        keys = try QueueKeys(queue: TestEnvironment.uniqueName("lua"))
    }

    /// Runs `script` with EVALSHA after loading it, with its declared keys,
    /// the context and `arguments`.
    func call(_ script: QueueScript, _ arguments: [String]) async throws -> RedisReply {
        try await evalsha(script.script, keys: script.keys(of: keys), arguments: context + arguments)
    }

    /// Runs `script` with EVALSHA after loading it, with `keys` and `arguments` as given.
    func evalsha(_ script: RedisScript, keys: [String], arguments: [String]) async throws -> RedisReply {
        let sha = try await send(["SCRIPT", "LOAD", script.source]).string
        #expect(sha == script.sha1, "the hash EVALSHA sends is not the loaded script's")
        return try await send(["EVALSHA", script.sha1, String(keys.count)] + keys + arguments)
    }

    /// The error `call` ends with (nil when it replies).
    func refusal(_ script: QueueScript, _ arguments: [String]) async throws -> String? {
        do {
            _ = try await call(script, arguments)
            return nil
        } catch let error as RedisError {
            guard case .server(let message) = error else { throw error }
            return message
        }
    }

    /// Sends a plain command.
    @discardableResult
    func send(_ command: [String]) async throws(RedisError) -> RedisReply {
        try await client.send(command)
    }

    /// Writes hash `key`.
    func write(_ key: String, _ fields: KeyValuePairs<String, String>) async throws {
        try await send(["HSET", key] + fields.flatMap { [$0.key, $0.value] })
    }

    /// Writes job `id`'s hash.
    func job(_ id: String, _ fields: KeyValuePairs<String, String>) async throws {
        try await write(keys.job(id), fields)
    }

    /// A hash's fields.
    func hash(_ key: String) async throws -> [String: String] {
        try await send(["HGETALL", key]).fieldDictionary
    }

    /// A sorted set's members with their scores.
    func scores(_ key: String) async throws -> [String: Double] {
        let flat = try await send(["ZRANGE", key, "0", "-1", "WITHSCORES"]).array.compactMap(\.string)
        return Dictionary(uniqueKeysWithValues: stride(from: 0, to: flat.count, by: 2).map { (flat[$0], Double(flat[$0 + 1]) ?? .nan) })
    }

    /// A stream's entries' fields, oldest first.
    func events(_ key: String) async throws -> [[String: String]] {
        try await send(["XRANGE", key, "-", "+"]).array.map { $0.array.count == 2 ? $0.array[1].fieldDictionary : [:] }
    }

    /// Redis's clock, in ms (the scripts' `now()`).
    func now() async throws -> Double {
        let time = try await send(["TIME"]).array.compactMap(\.integer)
        return Double(time[0]) * 1000 + Double(time[1] / 1000)
    }

    /// Writes an active job `id` in `batch` leased to `worker` with `token`,
    /// doing `url`'s disk work, with its lease deadline in `leases`.
    func activeJob(
        _ id: String, batch: String, url: String, worker: String = "w", token: String = "w/1", leaseDeadline: Double = 9e12
    ) async throws {
        try await job(id, [
            "url": url, "b:\(batch)": "1", "priority": "normal", "destination": "disk", "state": "active",
            "aging": "60000", "score": "1000", "enqueuedAt": "1", "attempts": "1", "claims": "1",
            "worker": worker, "lease": token,
        ])
        try await send(["ZADD", keys.leases, String(format: "%.0f", leaseDeadline), id])
        try await send(["HSET", keys.work, "disk||" + url, id])
        try await send(["SADD", keys.batchJobs(batch), id])
    }

    /// Writes a queued job `id` in `batch` at `score`.
    func queuedJob(_ id: String, batch: String, url: String, score: Int, priority: String = "normal") async throws {
        try await job(id, [
            "url": url, "b:\(batch)": "1", "priority": priority, "destination": "disk", "state": "queued",
            "aging": "60000", "score": String(score), "enqueuedAt": "1",
        ])
        try await send(["ZADD", keys.queue, String(score), id])
        try await send(["HSET", keys.work, "disk||" + url, id])
        try await send(["SADD", keys.batchJobs(batch), id])
    }

    /// Writes batch `id` with `total` URLs, none ended.
    func batch(_ id: String, total: Int, priority: String = "normal") async throws {
        try await write(keys.batch(id), [
            "id": id, "createdAt": "1", "priority": priority, "destination": "disk", "processing": "",
            "total": String(total), "completed": "0", "failed": "0", "cancelled": "0", "dead": "0",
        ])
        try await send(["ZADD", keys.batches, "1", id])
    }
}
