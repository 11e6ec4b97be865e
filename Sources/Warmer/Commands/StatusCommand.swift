import ArgumentParser
import Foundation
import Scheduler

/// `warmer status BATCH`: the batch's counters as JSON.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print a batch's counters as JSON."
    )

    @OptionGroup var redis: RedisOptions

    @Argument(help: "The batch id.")
    var batch: String

    func run() async throws {
        let status = try await redis.makeQueue().status(ofBatch: batch)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        Console.write(String(decoding: try encoder.encode(status), as: UTF8.self) + "\n")
    }
}
