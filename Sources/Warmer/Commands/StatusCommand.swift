import ArgumentParser
import Foundation
import Scheduler
import WarmerSupport

/// `warmer status [BATCH]`: a batch's counters (or failures), the queue's
/// state, throughput or one job, as JSON.
struct StatusCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print a batch's counters, or without a batch the queue's state, as JSON.",
        discussion: """
            With --failures, the batch's failed and dead-lettered jobs instead (newest first, the last 1,000 kept): \
            a JSON array of {job, url, state, error, message, at}. Without a batch, --throughput prints the jobs \
            the queue ended per second over the last --seconds (at most 900), and --job ID one job's record. \
            See docs/operations.md.
            """
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions

    @Argument(help: "The batch id; without it, the queue's queued/active/delayed/dead counts, intake backlog, pause and live workers.")
    var batch: String?

    @Flag(help: "With a batch: its failed and dead-lettered jobs with their reasons, newest first.")
    var failures = false

    @Option(help: ArgumentHelp("With --failures: how many to print, 1-1000.", valueName: "n"))
    var limit: Int?

    @Flag(help: "Without a batch: jobs completed and failed and bytes completed per second, oldest first.")
    var throughput = false

    @Option(help: ArgumentHelp("With --throughput: the seconds to cover, 1-900 (default 900), the current one included.", valueName: "n"))
    var seconds: Int?

    @Option(help: ArgumentHelp("Without a batch: print this job's record instead.", valueName: "id"))
    var job: String?

    static let settingCommand = SettingCommand.status

    var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

    func validate() throws {
        if batch != nil, throughput || job != nil { throw ValidationError("--throughput and --job take no batch id") }
        if throughput, job != nil { throw ValidationError("Give --throughput or --job, not both") }
        if failures, batch == nil { throw ValidationError("--failures needs a batch id") }
        if limit != nil, !failures { throw ValidationError("--limit goes with --failures") }
        if seconds != nil, !throughput { throw ValidationError("--seconds goes with --throughput") }
        if let limit, !(1...1_000).contains(limit) {
            throw ValidationError("--limit must be a whole number from 1 to 1000, not \(limit)")
        }
        if let seconds, !(1...QueueThroughput.maximumSeconds).contains(seconds) {
            throw ValidationError("--seconds must be a whole number from 1 to \(QueueThroughput.maximumSeconds), not \(seconds)")
        }
    }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let queue = try settings.makeQueue()
        let patience = settings.redisPatience
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        if let batch, failures {
            let limit = limit ?? 100
            data = try encoder.encode(try await patience.run { () async throws(SchedulerError) in
                try await queue.failures(ofBatch: batch, limit: limit)
            })
        } else if let batch {
            data = try encoder.encode(
                try await patience.run { () async throws(SchedulerError) in try await queue.status(ofBatch: batch) })
        } else if throughput {
            let seconds = seconds ?? QueueThroughput.maximumSeconds
            data = try encoder.encode(try await patience.run { () async throws(SchedulerError) in
                try await queue.throughput(seconds: seconds)
            })
        } else if let job {
            guard let record = try await patience.run({ () async throws(SchedulerError) in try await queue.job(id: job) }) else {
                throw WarmerError.jobNotFound(job)
            }
            data = try encoder.encode(record)
        } else {
            data = try encoder.encode(try await patience.run { () async throws(SchedulerError) in try await queue.statistics() })
        }
        Console.write(String(decoding: data, as: UTF8.self) + "\n")
    }
}
