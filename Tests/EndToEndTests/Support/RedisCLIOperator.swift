import Foundation
import TestSupport

/// An operator without Warmer's code: everything through the real
/// `redis-cli` binary — control documents RPUSHed onto the queue's commands
/// list, outcomes read from the queue's event stream with XRANGE, job and
/// batch hashes with HGETALL — as a service in any language would.
struct RedisCLIOperator: Sendable {
    let queue: QueueProbe

    /// `warmer:{Q}:` + `suffix`, spelled out as a client would.
    func key(_ suffix: String) -> String { "warmer:{\(queue.name)}:\(suffix)" }

    /// RPUSHes `documents` onto `warmer:{Q}:commands` in one command.
    func push(_ documents: [String]) async throws {
        let result = try await redisCLI(url: queue.redisURL, ["RPUSH", key("commands")] + documents)
        guard result.status == 0, Int(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) != nil else {
            throw HarnessError("RPUSH failed: \(result)")
        }
    }

    /// Runs one redis-cli command and returns its output lines.
    func lines(_ command: [String]) async throws -> [String] {
        let result = try await redisCLI(url: queue.redisURL, command)
        guard result.status == 0, !result.standardOutput.hasPrefix("ERR"), !result.standardOutput.hasPrefix("WRONGTYPE") else {
            throw HarnessError("redis-cli failed: \(result)")
        }
        return result.outputLines.dropLast(result.outputLines.last == "" ? 1 : 0).map { $0 }
    }

    /// HGETALL as a dictionary (empty for a missing key).
    func hash(_ key: String) async throws -> [String: String] {
        let flat = try await lines(["HGETALL", key])
        return Dictionary(stride(from: 0, to: flat.count - 1, by: 2).map { (flat[$0], flat[$0 + 1]) }) { _, last in last }
    }

    /// One field of a hash, nil when absent.
    func field(_ key: String, _ field: String) async throws -> String? {
        let value = try await lines(["HGET", key, field])
        return value.first.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Every retained event of the queue's stream (`XRANGE warmer:{Q}:events - +`).
    func queueEvents() async throws -> [[String: String]] {
        Self.entries(try await lines(["XRANGE", key("events"), "-", "+"]))
    }

    /// The entries of an XRANGE or XREVRANGE reply as redis-cli prints it
    /// raw: per entry its id line (`MS-SEQ`), then field and value lines. An
    /// empty value is an empty line, kept, so that fields and values stay
    /// paired; an id where a field name is expected starts the next entry.
    static func entries(_ lines: [String]) -> [[String: String]] {
        var entries: [[String: String]] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let parts = line.split(separator: "-", omittingEmptySubsequences: false)
            if parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) {
                entries.append([:])
                index += 1
            } else if !entries.isEmpty, index + 1 < lines.count {
                entries[entries.count - 1][line] = lines[index + 1]
                index += 2
            } else {
                index += 1
            }
        }
        return entries
    }

    /// The `controlApplied` or `deadLettered` event carrying the caller's
    /// `id`; throws when none was published within `timeout`.
    func outcome(of id: String, timeout: Duration = .seconds(30)) async throws -> [String: String] {
        let found = await eventuallyValue(timeout: timeout, pollingEvery: .milliseconds(100)) { () async -> [String: String]? in
            guard let lines = try? await lines(["XREVRANGE", key("events"), "+", "-", "COUNT", "500"]) else { return nil }
            return Self.entries(lines).first { event in
                event["id"] == id && (event["type"] == "controlApplied" || event["type"] == "deadLettered")
            }
        }
        guard let found else {
            let recent = (try? await queueEvents().suffix(20).map { "\($0)" }.joined(separator: "\n")) ?? ""
            throw HarnessError("no outcome for control document \(id) within \(timeout); recent events:\n\(recent)")
        }
        return found
    }

    /// Ids of the batch's jobs that have not ended, by URL (SMEMBERS, then HGET url).
    func liveJobs(ofBatch batch: String) async throws -> [String: String] {
        var jobs: [String: String] = [:]
        for id in try await lines(["SMEMBERS", key("batch:\(batch):jobs")]) {
            if let url = try await field(key("job:\(id)"), "url") { jobs[url] = id }
        }
        return jobs
    }
}

/// A JSON text of `object` (keys sorted), as a client would send it.
func jsonDocument(_ object: [String: Any]) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
}
