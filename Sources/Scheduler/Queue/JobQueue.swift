import Foundation
import Logging
import RedisKit
import WarmerSupport

/// A prefetch job queue in Redis: batches in, leased jobs out, events published.
///
/// Every state change is one Lua script, so a crash between two commands can
/// neither lose nor duplicate a job. The key layout and the documents are the
/// wire format of docs/wire-format.md. The operations are grouped by role in
/// the extensions: producing, working, controlling, dead letters, observing.
///
/// It logs the transitions a worker makes through it (see docs/operations.md,
/// "Logs"): a job's end — failed, retry scheduled, dead-lettered or cancelled
/// at info or above, completed at debug — and what the housekeeping of its
/// claims and renewals did (jobs recovered from expired leases, dead-lettered
/// intake documents); claims, releases and renewals at debug.
public final class JobQueue: Sendable {
    /// Tunables of a queue client.
    public struct Configuration: Sendable {
        /// How long a claimed job stays leased without renewal. Default: 30 s.
        public var leaseDuration: Duration = .seconds(30)
        /// How many times a job's lease may expire (its worker died or hung)
        /// before it is dead-lettered as `stalled`. Default: 2.
        public var maximumStalls = 2
        /// Retries of jobs that failed with a transient error.
        public var retry = JobRetryPolicy()
        /// The waiting time one priority level is worth: a job that waited
        /// this long per level between its priority and a newer job's is
        /// served first, so low priorities never starve. `.zero` makes
        /// priorities strict. Applies to jobs this client enqueues (or
        /// expands from the intake list). Default: 60 s.
        public var agingInterval: Duration = .seconds(60)
        /// The head start of a group that becomes active (fair queueing,
        /// docs/wire-format.md "The order jobs are handed out"): up to this
        /// many claims in a row before turns alternate, so that a small batch
        /// arriving while a big one holds every slot takes the next freed
        /// slots rather than every other one. Shared by all groups that
        /// become active, refilled by one claim per turn of the others;
        /// never more than the jobs running less one per group in line.
        /// 0 turns it off (strict turns). Default: 32.
        public var groupBurst = 32
        /// Approximate maximum length of the queue-wide event stream. Default: 100,000.
        public var maximumEvents = 100_000
        /// Approximate maximum length of each batch's event stream. Default: 100,000.
        public var maximumBatchEvents = 100_000
        /// How long a finished batch (and a finished job) stays readable. Default: 7 days.
        public var retention: Duration = .seconds(7 * 24 * 3600)
        /// URLs per enqueue script call; bounds how long one call blocks
        /// Redis (15 to 100 µs a URL). A call of more than 50 has its URLs
        /// staged, to become jobs over the next claims (slices.lua).
        /// Default: 50, what one call makes into jobs at once.
        public var enqueueChunkSize = 50
        /// How long one claim may spend turning staged URLs (the slices of
        /// a large document, docs/wire-format.md "Large documents") into
        /// jobs: it stops after the chunk of 20 URLs that passes it, so the
        /// call holds Redis for about this long even where making a job has
        /// grown slow (a million jobs queued). `.zero`: no limit, a whole
        /// slice of 100 URLs a claim. Default: 2 ms.
        public var sliceBudget: Duration = .milliseconds(2)
        /// How many completed works (URL, destination, processing) the
        /// queue remembers for batches that ask `freshFor`, the oldest
        /// forgotten first: about 127 bytes of Redis memory each, so the
        /// default 250,000 holds some 32 MB. 0 remembers none. Completions
        /// are remembered by whichever client ends them (the workers), and
        /// at most for the `retention`. Default: 250,000.
        public var recentCapacity = 250_000
        /// Parses large intake documents this client's claims take, and
        /// those it `submit`s, off Redis (docs/wire-format.md, "Large
        /// documents"); `nil`: Redis decodes each document in the call that
        /// takes it. Default: `nil` (`warmer worker` and `warmer serve` set one).
        public var intakeParser: IntakeParser?

        /// Creates the default configuration.
        public init() {}
    }

    /// The queue's keys.
    public let keys: QueueKeys
    /// The client the queue sends its commands through.
    public let client: RedisClient
    /// The configuration.
    public let configuration: Configuration
    /// Where the queue logs what it does.
    public let logger: Logger

    /// Creates a client for the queue `name` (the queue itself needs no creation).
    public init(
        client: RedisClient, name: String = "default", configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "warmer.queue")
    ) throws(SchedulerError) {
        self.keys = try QueueKeys(queue: name)
        self.client = client
        self.configuration = configuration
        self.logger = logger
        self.context = [
            keys.prefix, String(configuration.maximumEvents), String(configuration.maximumBatchEvents),
            String(max(1, configuration.retention.milliseconds / 1000)), String(max(1, configuration.leaseDuration.milliseconds)),
            String(max(0, configuration.maximumStalls)), String(max(0, configuration.agingInterval.milliseconds)),
            String(max(0, configuration.recentCapacity)),
            String(max(0, configuration.groupBurst)),
            configuration.intakeParser == nil ? "" : "worker",
            String(max(0, configuration.sliceBudget.nanoseconds / 1000)),
        ]
        let keys = self.keys
        self.scriptKeys = Dictionary(uniqueKeysWithValues: (QueueScripts.all + WorkerScripts.all).map { ($0.name, $0.keys(of: keys)) })
    }

    /// Each queue script's `KEYS` for this queue, by the script's name, built
    /// once (`QueueScript.keys(of:)`) rather than per call.
    private let scriptKeys: [String: [String]]

    /// The `KEYS` of `script` for this queue.
    private func keys(of script: QueueScript) -> [String] {
        scriptKeys[script.name] ?? script.keys(of: keys)
    }

    /// The arguments every queue script starts with: the queue context of
    /// `Queue/Lua/includes/context.lua` (prefix, stream lengths, retention, lease,
    /// stalls, aging, recent capacity, group burst, whether this client
    /// parses large documents, slice budget).
    private let context: [String]

    /// Runs a queue script with its declared keys (`QueueScript.keys(of:)`)
    /// and the context arguments followed by `arguments`, through the
    /// queue's client or through `other` (a client of its own).
    @discardableResult
    func run(_ script: QueueScript, _ arguments: [String], using other: RedisClient? = nil) async throws(SchedulerError) -> RedisReply {
        do {
            return try await script.script.run(on: other ?? client, keys: keys(of: script), arguments: context + arguments)
        } catch {
            throw SchedulerError(error)
        }
    }

    /// Runs a queue script on `connection`, blocking the calling thread.
    func run(_ script: QueueScript, _ arguments: [String], on connection: RedisConnection) throws(SchedulerError) -> RedisReply {
        do {
            return try script.script.run(on: connection, keys: keys(of: script), arguments: context + arguments)
        } catch {
            throw SchedulerError(error)
        }
    }

    /// The EVALSHA command that runs `script` with `arguments`, for pipelining
    /// several calls (the script must be loaded: run it once with `run` first).
    func evalCommand(_ script: QueueScript, _ arguments: [String]) -> [String] {
        let scriptKeys = keys(of: script)
        return ["EVALSHA", script.script.sha1, String(scriptKeys.count)] + scriptKeys + context + arguments
    }

    /// Sends a plain command.
    @discardableResult
    func send(_ command: [String]) async throws(SchedulerError) -> RedisReply {
        do {
            return try await client.send(command)
        } catch {
            throw .redis(error)
        }
    }
}
