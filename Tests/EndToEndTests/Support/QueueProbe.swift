import Foundation
import RedisKit
import Scheduler
import TestSupport

/// One test's queue in the test Redis: a unique name, the arguments that
/// point `warmer` at it, and reads through `Scheduler`'s own client.
struct QueueProbe: Sendable {
    /// The unique queue name.
    let name: String
    /// `redis://127.0.0.1:PORT` of the Redis the queue lives in.
    let redisURL: String
    let queue: JobQueue
    let events: EventStream
    /// Reserved for XREAD BLOCK.
    private let blockingClient: RedisClient

    /// - Parameters:
    ///   - redisURL: the Redis to use; the test redis-server of
    ///     `scripts/test.sh` when nil (a test's own `RedisServer` otherwise).
    ///   - name: the queue's name; a unique one when nil.
    init(redisURL: String? = nil, name: String? = nil) throws {
        self.name = name ?? TestEnvironment.uniqueName("q")
        self.redisURL = try redisURL ?? TestEnvironment.redisURL()
        let url = try RedisURL(parsing: self.redisURL)
        queue = try JobQueue(client: RedisClient(url: url, name: "test-redis"), name: self.name)
        blockingClient = RedisClient(url: url, name: "test-redis-blocking")
        events = EventStream(queue: queue)
    }

    /// `--redis URL --queue NAME`.
    var redisArguments: [String] { ["--redis", redisURL, "--queue", name] }

    /// Sends one raw command (ZCARD, ZSCORE…).
    @discardableResult
    func send(_ command: [String]) async throws -> RedisReply {
        try await queue.client.send(command)
    }

    /// Enqueues `urls` with `warmer enqueue FILE` and returns the batch id it printed.
    func enqueue(_ urls: [URL], priority: String? = nil, extra: [String] = []) async throws -> String {
        let folder = try TestEnvironment.temporaryDirectory("urls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("urls.txt")
        try Data(urls.map { $0.absoluteString + "\n" }.joined().utf8).write(to: file)
        let result = try await warmer(["enqueue"] + redisArguments + (priority.map { ["--priority", $0] } ?? []) + extra + [file.path])
        guard result.status == 0, let id = result.outputLines.last, !id.isEmpty else {
            throw HarnessError("enqueue failed: \(result)")
        }
        return id.trimmingCharacters(in: .whitespaces)
    }

    /// The batch's counters once it is finished; throws after `timeout`.
    func waitUntilFinished(batch: String, timeout: Duration = .seconds(30)) async throws -> BatchStatus {
        let status = await eventuallyValue(timeout: timeout) { () async -> BatchStatus? in
            guard let status = try? await queue.status(ofBatch: batch), status.isFinished else { return nil }
            return status
        }
        guard let status else {
            let current = (try? await queue.status(ofBatch: batch)).map { "\($0)" } ?? "no such batch"
            throw HarnessError("batch \(batch) did not finish within \(timeout): \(current)")
        }
        return status
    }

    /// Every retained event of `batch`, in stream order.
    func events(ofBatch batch: String) async throws -> [JobEvent] {
        try await readAll(batch: batch)
    }

    /// Every retained event of the whole queue, in stream order.
    func queueEvents() async throws -> [JobEvent] {
        try await readAll(batch: nil)
    }

    private func readAll(batch: String?) async throws -> [JobEvent] {
        var all: [JobEvent] = []
        var position = EventStream.Position.beginning
        while true {
            let page = try await events.read(batch: batch, after: position, timeout: .milliseconds(20), using: blockingClient)
            guard let last = page.last?.streamID else { return all }
            all += page
            position = .after(last)
        }
    }
}

extension JobEvent {
    /// The `worker` field (`host:pid:xxxx`), empty when absent: match a
    /// `RunningWorker` with `contains(":\(worker.processIdentifier):")`.
    var worker: String { fields["worker"] ?? "" }

    /// Short form for failure messages: `ts type job url bytes error worker`.
    var summary: String {
        [fields["ts"] ?? "-", kind.rawValue, jobID ?? "-", url ?? "-", fields["bytes"] ?? "", fields["error"] ?? "", worker]
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}

extension Array where Element == JobEvent {
    /// One event per line, for failure messages.
    var summary: String { map(\.summary).joined(separator: "\n") }
}
