import RedisKit
import Scheduler
import Synchronization

/// The queue clients of `serve`, one per queue name a request names, over
/// one shared Redis client. A path may name any valid queue, so at most
/// `capacity` clients are kept; past that the directory starts afresh
/// (a client is cheap to make; this only bounds memory).
package final class QueueDirectory: Sendable {
    /// The client every queue sends its commands through.
    let client: RedisClient
    private let configuration: JobQueue.Configuration
    private let capacity: Int
    private let queues = Mutex<[String: JobQueue]>([:])

    package init(client: RedisClient, configuration: JobQueue.Configuration, capacity: Int = 256) {
        self.client = client
        self.configuration = configuration
        self.capacity = capacity
    }

    /// The client of queue `name`.
    /// - Throws: `SchedulerError.invalidQueueName`.
    package func queue(_ name: String) throws(SchedulerError) -> JobQueue {
        if let queue = queues.withLock({ $0[name] }) { return queue }
        let queue = try JobQueue(client: client, name: name, configuration: configuration)
        queues.withLock { queues in
            if queues.count >= capacity { queues.removeAll(keepingCapacity: true) }
            queues[name] = queue
        }
        return queue
    }
}

extension QueueDirectory {
    /// The client of the queue a request's path names (`{queue}`).
    func queue(of context: ServerContext) throws -> JobQueue {
        try queue(context.pathParameter("queue"))
    }
}
