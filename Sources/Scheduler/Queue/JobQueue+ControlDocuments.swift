import Foundation
import Logging
import RedisKit
import WarmerSupport

extension JobQueue {
    /// How much of a large control document one step applies: each step is
    /// one atomic script, so these bound how long Redis is held.
    public struct ControlDocumentChunks: Sendable, Hashable {
        /// Jobs of a batch cancelled or re-prioritised per step. Default: 2,000 (as `cancel(batch:)`).
        public var batchJobs = 2_000
        /// Dead letters retried or purged per step with `"all": true`. Default: 1,000 (as `retryDeadLetters()`).
        public var deadLetters = 1_000

        /// Creates the default chunks.
        public init() {}
    }

    /// Applies one step of the control documents clients push onto
    /// `keys.commands`: goes on with the document in progress, else takes
    /// the next one (validating it, dead-lettering a bad one). A document
    /// stays in Redis until its last step, so a worker that dies between
    /// steps loses nothing, and each step is atomic, so none is applied
    /// twice; any number of workers may call this at once.
    ///
    /// Logs an applied document at info, a dead-lettered one as a warning.
    /// - Parameter other: a client of its own to send the step through
    ///   (the queue's client when nil).
    @discardableResult
    public func applyControlDocumentStep(
        using other: RedisClient? = nil, chunks: ControlDocumentChunks = ControlDocumentChunks()
    ) async throws(SchedulerError) -> ControlDocumentStep {
        let reply = try await run(QueueScripts.controlDocument, [String(max(1, chunks.batchJobs)), String(max(1, chunks.deadLetters))],
                                  using: other)
        let step = try ControlDocumentStep(reply: reply)
        switch step {
        case .applied(let fields):
            var metadata: Logger.Metadata = [:]
            for (field, value) in fields where !["v", "type", "ts"].contains(field) && !value.isEmpty {
                metadata[field] = .string(value)
            }
            logger.info("control document applied", metadata: metadata)
        case .deadLettered(let deadLetterID, let error, let message, let id, let operation):
            var metadata: Logger.Metadata = ["job": .string(deadLetterID), "code": .string(error), "message": .string(message)]
            if let id { metadata["id"] = .string(id) }
            if let operation { metadata["op"] = .string(operation) }
            logger.warning("control document dead-lettered", metadata: metadata)
        case .idle, .inProgress:
            break
        }
        return step
    }

    /// Waits until a control document may be waiting or `timeout` passes,
    /// using a client reserved for blocking commands. Returns true when woken.
    ///
    /// The wait is a `BLMOVE` of the commands list's head to
    /// `commands:pending`, which the next step by any worker drains first: a
    /// document taken while waking never leaves Redis, whatever happens to
    /// this worker, and documents keep their order. So a cancelled caller
    /// stops waiting at once (`RedisClient.sendBlocking`) and gets false.
    public func waitForControlDocument(using blockingClient: RedisClient, timeout: Duration) async throws(SchedulerError) -> Bool {
        let seconds = String(format: "%.3f", Double(timeout.milliseconds) / 1000)
        do {
            let reply = try await blockingClient.sendBlocking(["BLMOVE", keys.commands, keys.pendingCommands, "LEFT", "RIGHT", seconds])
            return reply != .null
        } catch {
            throw .redis(error)
        }
    }
}
