import ArgumentParser
import Foundation
import Scheduler
import WarmerSupport

/// `warmer batches`: the queue's batches, newest first, a page at a time.
struct BatchesCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "batches",
        abstract: "List the queue's batches, newest first, a page at a time.",
        discussion: """
            Without --json, one line per batch: id, creation time (UTC), priority, destination, total, completed, \
            failed, cancelled, dead, pending and whether it finished; then, when older batches remain, the \
            --before cursor of the next page. With --json, the page as {"batches": [...], "next": CURSOR or null}, \
            each batch as `warmer status BATCH` prints it. Batches expire after the retention once finished.
            """
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions

    @Option(help: ArgumentHelp("How many batches to list, 1-\(BatchPage.maximumLimit).", valueName: "n"))
    var limit = 50

    @Option(help: ArgumentHelp("List the batches older than this cursor (the previous page's next).", valueName: "cursor"))
    var before: String?

    @Flag(help: "Print the page as JSON.")
    var json = false

    static let settingCommand = SettingCommand.batches

    var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

    func validate() throws {
        guard (1...BatchPage.maximumLimit).contains(limit) else {
            throw ValidationError("--limit must be a whole number from 1 to \(BatchPage.maximumLimit), not \(limit)")
        }
    }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let queue = try settings.makeQueue()
        let (limit, before) = (limit, before)
        let page = try await settings.redisPatience.run { () async throws(SchedulerError) in
            try await queue.batches(limit: limit, before: before)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Console.write(String(decoding: try encoder.encode(page), as: UTF8.self) + "\n")
        } else {
            Console.write(Self.table(page.batches) + (page.next.map { "next: --before \($0)\n" } ?? ""))
        }
    }

    /// The batches as an aligned text table with a header line.
    static func table(_ batches: [BatchStatus]) -> String {
        let header = ["ID", "CREATED", "PRIORITY", "DESTINATION", "TOTAL", "COMPLETED", "FAILED", "CANCELLED", "DEAD", "PENDING", "FINISHED"]
        let rows = batches.map { batch in
            [
                batch.id, batch.createdAt.flatMap(UTCTime.text(milliseconds:)) ?? "-", batch.priority ?? "-",
                batch.destination ?? "-", String(batch.total), String(batch.completed), String(batch.failed),
                String(batch.cancelled), String(batch.dead), String(batch.pending), batch.isFinished ? "yes" : "no",
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }.joined()
    }
}
