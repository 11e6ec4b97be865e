import Foundation

/// A prefetch job queue in Redis: batches in, leased jobs out, events published.
///
/// Every state change is one Lua script, so a crash between two commands can
/// neither lose nor duplicate a job. The key layout and the documents are the
/// wire format of docs/wire-format.md.
public final class JobQueue: Sendable {
    /// Tunables of a queue client.
    public struct Configuration: Sendable {
        /// How long a claimed job stays leased without renewal. Default: 30 s.
        public var leaseDuration: Duration = .seconds(30)
        /// Approximate maximum length of the queue-wide event stream. Default: 100,000.
        public var maximumEvents = 100_000
        /// Approximate maximum length of each batch's event stream. Default: 100,000.
        public var maximumBatchEvents = 100_000
        /// How long a finished batch (and a finished job) stays readable. Default: 7 days.
        public var retention: Duration = .seconds(7 * 24 * 3600)
        /// URLs per enqueue script call; bounds how long one call blocks Redis. Default: 2,000.
        public var enqueueChunkSize = 2_000

        /// Creates the default configuration.
        public init() {}
    }

    /// The queue's keys.
    public let keys: QueueKeys
    /// The client the queue sends its commands through.
    public let client: RedisClient
    /// The configuration.
    public let configuration: Configuration

    /// Creates a client for the queue `name` (the queue itself needs no creation).
    public init(client: RedisClient, name: String = "default", configuration: Configuration = Configuration()) throws(SchedulerError) {
        self.keys = try QueueKeys(queue: name)
        self.client = client
        self.configuration = configuration
    }

    // MARK: Producing

    /// Adds `urls` as jobs of a batch and returns the batch id.
    ///
    /// - Parameter batchID: a batch to create or append to; a new random id when `nil`.
    public func enqueue(
        urls: [String], priority: JobPriority = .normal, destination: JobDestination = .disk,
        processing: String = "", batchID: String? = nil
    ) async throws(SchedulerError) -> String {
        guard !urls.isEmpty else { throw .emptyBatch }
        let batch = batchID ?? Self.makeBatchID()
        var isFirstChunk = true
        var start = 0
        while start < urls.count {
            let end = min(start + configuration.enqueueChunkSize, urls.count)
            let arguments = [
                keys.prefix, batch, priority.rawValue, String(priority.band), destination.rawValue,
                isFirstChunk ? String(urls.count) : "0", processing,
            ] + urls[start..<end]
            try await run(enqueueScript, keys: [keys.queue, keys.sequence, keys.wake, keys.batches], arguments: arguments)
            isFirstChunk = false
            start = end
        }
        return batch
    }

    /// A new batch id: 16 lowercase hex characters.
    public static func makeBatchID() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))
    }

    // MARK: Working

    /// Claims up to `count` jobs, highest priority first, each leased to `worker`.
    /// Also re-queues jobs whose lease expired. Returns an empty array when the queue is empty.
    public func claim(upTo count: Int, worker: String) async throws(SchedulerError) -> [Job] {
        let reply = try await run(
            claimScript, keys: [keys.queue, keys.leases, keys.wake],
            arguments: [keys.prefix, String(max(1, count)), worker, String(configuration.leaseDuration.milliseconds)]
        )
        return Self.jobs(in: reply)
    }

    /// Decodes the jobs returned by the claim and finish scripts.
    private static func jobs(in reply: RedisReply) -> [Job] {
        reply.array.compactMap { entry in
            let fields = entry.array.map { $0.string ?? "" }
            guard fields.count == 8 else { return nil }
            return Job(id: fields[0], url: fields[1], batchID: fields[2], priority: fields[3],
                       destination: fields[4], processing: fields[7], attempt: Int(fields[5]) ?? 1, leaseToken: fields[6])
        }
    }

    /// Waits until jobs may be available or `timeout` passes, using a client
    /// reserved for blocking commands. Returns true when woken by a producer.
    public func waitForWork(using blockingClient: RedisClient, timeout: Duration) async throws(SchedulerError) -> Bool {
        let seconds = String(format: "%.3f", Double(timeout.milliseconds) / 1000)
        do {
            let reply = try await blockingClient.send(["BLPOP", keys.wake, seconds])
            return reply != .null
        } catch {
            throw .redis(error)
        }
    }

    /// Ends a job: counts it in its batch and publishes its final event. In
    /// the same atomic step, claims up to `claimingNext` more jobs for
    /// `worker` and returns them (a busy worker needs no separate claim).
    /// - Throws: `SchedulerError.leaseLost` when another worker owns the job now.
    @discardableResult
    public func finish(
        _ job: Job, outcome: JobOutcome, worker: String, claimingNext count: Int = 0
    ) async throws(SchedulerError) -> [Job] {
        var source = "", bytes = "", code = "", message = ""
        switch outcome {
        case .completed(let from, let size): (source, bytes) = (from, String(size))
        case .failed(let reason, let text), .deadLettered(let reason, let text): (code, message) = (reason, text)
        }
        do {
            let reply = try await run(finishScript, keys: [keys.leases, keys.events, keys.dead, keys.queue, keys.wake], arguments: [
                keys.prefix, job.id, job.leaseToken, outcome.state, worker, source, bytes, code, message,
                String(configuration.maximumEvents), String(configuration.maximumBatchEvents),
                String(max(1, configuration.retention.milliseconds / 1000)),
                String(max(0, count)), String(configuration.leaseDuration.milliseconds),
            ])
            return Self.jobs(in: reply)
        } catch .redis(.server(let text)) where text.hasPrefix("LEASE_LOST") {
            throw .leaseLost(jobID: job.id)
        }
    }

    /// Puts a claimed job back in the queue without counting an attempt.
    /// Returns false when the lease was already lost.
    @discardableResult
    public func release(_ job: Job) async throws(SchedulerError) -> Bool {
        let reply = try await run(releaseScript, keys: [keys.queue, keys.leases, keys.wake],
                                  arguments: [keys.prefix, job.id, job.leaseToken])
        return reply.integer == 1
    }

    /// Extends the leases of `jobs`; returns the ids whose lease was lost.
    public func renewLeases(of jobs: [Job]) async throws(SchedulerError) -> [String] {
        guard !jobs.isEmpty else { return [] }
        let pairs = jobs.flatMap { [$0.id, $0.leaseToken] }
        let reply = try await run(renewScript, keys: [keys.leases],
                                  arguments: [keys.prefix, String(configuration.leaseDuration.milliseconds)] + pairs)
        return reply.array.compactMap(\.string)
    }

    // MARK: Observing

    /// The counters of batch `id`.
    public func status(ofBatch id: String) async throws(SchedulerError) -> BatchStatus {
        let reply: RedisReply
        do {
            reply = try await client.send(["HGETALL", keys.batch(id)])
        } catch {
            throw .redis(error)
        }
        guard let status = BatchStatus(fields: reply.fieldDictionary) else { throw .batchNotFound(id) }
        return status
    }

    /// Number of jobs waiting to be claimed.
    public func queuedCount() async throws(SchedulerError) -> Int {
        do {
            return try await client.send(["ZCARD", keys.queue]).integer ?? 0
        } catch {
            throw .redis(error)
        }
    }

    // MARK: Private

    @discardableResult
    private func run(_ script: RedisScript, keys: [String], arguments: [String]) async throws(SchedulerError) -> RedisReply {
        do {
            return try await script.run(on: client, keys: keys, arguments: arguments)
        } catch {
            throw .redis(error)
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, saturating at `Int.max`.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
