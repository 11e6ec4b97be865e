import ArgumentParser
import Foundation
import Scheduler

/// `warmer status [BATCH]`: a batch's counters, or the queue's state, as JSON.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print a batch's counters, or without a batch the queue's state, as JSON."
    )

    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions
    @OptionGroup(title: "Logging") var logging: LoggingOptions

    @Argument(help: "The batch id; without it, the queue's queued/active/delayed/dead counts, intake backlog and pause.")
    var batch: String?

    func run() async throws {
        logging.bootstrap()
        let queue = try redis.makeQueue()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = if let batch {
            try encoder.encode(try await wait.patience.run { () async throws(SchedulerError) in try await queue.status(ofBatch: batch) })
        } else {
            try encoder.encode(try await wait.patience.run { () async throws(SchedulerError) in try await queue.statistics() })
        }
        Console.write(String(decoding: data, as: UTF8.self) + "\n")
    }
}
