import RedisKit
import WarmerSupport

/// The queue's control stream, which every worker reads: messages that reach
/// jobs already running on any worker, on any host.
///
/// The queue's scripts publish them (`JobQueue.cancel`, `setPriority`); a
/// worker reads from the moment it starts. A message a worker misses while
/// Redis is unreachable is caught by the next lease renewal, which reports
/// jobs cancelled while running.
public struct ControlStream: Sendable {
    /// A control message (wire format v1).
    public enum Message: Sendable, Hashable {
        /// Abort job `id`: no batch needs it any more.
        case cancel(jobID: String)
        /// Job `id` now runs at `priority`.
        case priority(jobID: String, priority: JobPriority)
    }

    /// The queue whose control stream this is.
    public let queue: JobQueue

    /// Creates a reader of `queue`'s control stream.
    public init(queue: JobQueue) {
        self.queue = queue
    }

    /// Reads the messages after `position` (`$` for "from now", else a stream
    /// id), waiting up to `timeout`. Returns them with the position to read from next.
    /// A cancelled caller stops waiting at once and gets no messages.
    public func read(after position: String, timeout: Duration, using blockingClient: RedisClient)
        async throws(SchedulerError) -> (messages: [Message], next: String)
    {
        let reply: RedisReply
        do {
            reply = try await blockingClient.sendBlocking([
                "XREAD", "COUNT", "1000", "BLOCK", String(max(1, timeout.milliseconds)), "STREAMS", queue.keys.control, position,
            ])
        } catch {
            throw .redis(error)
        }
        guard let stream = reply.array.first, stream.array.count == 2 else { return ([], position) }
        var next = position
        var messages: [Message] = []
        for entry in stream.array[1].array where entry.array.count == 2 {
            if let id = entry.array[0].string { next = id }
            let fields = entry.array[1].fieldDictionary
            guard let job = fields["job"] else { continue }
            switch fields["type"] {
            case "cancel": messages.append(.cancel(jobID: job))
            case "priority":
                if let priority = fields["priority"].flatMap(JobPriority.init(rawValue:)) {
                    messages.append(.priority(jobID: job, priority: priority))
                }
            default: continue
            }
        }
        return (messages, next)
    }

    /// The id of the stream's newest entry (`0-0` when empty): reading after
    /// it returns only messages published later. Unlike `$`, a position
    /// survives reconnects without missing what was published in between.
    public func latestPosition() async throws(SchedulerError) -> String {
        let reply = try await queue.send(["XREVRANGE", queue.keys.control, "+", "-", "COUNT", "1"])
        return reply.array.first?.array.first?.string ?? "0-0"
    }
}
