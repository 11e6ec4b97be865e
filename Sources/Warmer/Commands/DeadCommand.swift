import ArgumentParser
import Foundation
import Scheduler

/// `warmer dead list|retry|purge`: the dead-letter set.
struct DeadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead",
        abstract: "List, retry or purge dead-lettered jobs and intake documents.",
        subcommands: [List.self, Retry.self, Purge.self]
    )

    /// `warmer dead list`.
    struct List: AsyncParsableCommand, ConfiguredCommand {
        static let configuration = CommandConfiguration(abstract: "List dead letters, newest first: id, error, URL or document, reason.")

        @OptionGroup var general: GeneralOptions
        @OptionGroup var redis: RedisOptions
        @OptionGroup var wait: RedisWaitOptions

        @Option(help: ArgumentHelp("How many to list, 1-\(Self.limits.upperBound).", valueName: "n"))
        var limit = 100

        @Flag(help: "One JSON object per line: typed fields, as docs/wire-format.md's \"Dead letters\" describes them.")
        var json = false

        /// The accepted `--limit`s.
        static let limits = 1...100_000

        func validate() throws {
            guard Self.limits.contains(limit) else {
                throw ValidationError("--limit must be a whole number from 1 to \(Self.limits.upperBound), not \(limit)")
            }
        }

        static let settingCommand = SettingCommand.deadList

        var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

        func run() async throws {
            let settings = try await resolveSettings()
            settings.bootstrapLogging()
            let queue = try settings.makeQueue()
            let letters = try await settings.redisPatience.run { () async throws(SchedulerError) in try await queue.deadLetters(limit: limit) }
            for letter in letters {
                // The job hash keeps the URL (and a document) as sent, for
                // the download and `dead retry`; shown, passwords are masked.
                if json {
                    Console.write(try DeadLetterRecord(letter).jsonLine() + "\n")
                } else {
                    let subject = letter.isDocument ? "document " + String((letter.fields["document"] ?? "").prefix(60)) : (letter.url ?? "")
                    Console.write(URLCredentials.masked("\(letter.id)\t\(letter.error ?? "-")\t\(subject)\t\(letter.message ?? "")") + "\n")
                }
            }
        }
    }

    /// `warmer dead retry`.
    struct Retry: AsyncParsableCommand, ConfiguredCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run dead-lettered jobs again (they count again in their batches); push documents to the intake again.")

        @OptionGroup var general: GeneralOptions
        @OptionGroup var redis: RedisOptions
        @OptionGroup var wait: RedisWaitOptions
        @OptionGroup var selection: DeadLetterSelection

        static let settingCommand = SettingCommand.deadRetry

        var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

        func run() async throws {
            let settings = try await resolveSettings()
            settings.bootstrapLogging()
            let queue = try settings.makeQueue()
            let unknown = try await selection.unknown(in: queue, patience: settings.redisPatience)
            let count = try await settings.redisPatience.run { () async throws(SchedulerError) in try await queue.retryDeadLetters(selection.ids) }
            Console.write("retried \(count)\n")
            try DeadLetterSelection.report(unknown)
        }
    }

    /// `warmer dead purge`.
    struct Purge: AsyncParsableCommand, ConfiguredCommand {
        static let configuration = CommandConfiguration(abstract: "Delete dead letters for good.")

        @OptionGroup var general: GeneralOptions
        @OptionGroup var redis: RedisOptions
        @OptionGroup var wait: RedisWaitOptions
        @OptionGroup var selection: DeadLetterSelection

        static let settingCommand = SettingCommand.deadPurge

        var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

        func run() async throws {
            let settings = try await resolveSettings()
            settings.bootstrapLogging()
            let queue = try settings.makeQueue()
            let unknown = try await selection.unknown(in: queue, patience: settings.redisPatience)
            let count = try await settings.redisPatience.run { () async throws(SchedulerError) in try await queue.purgeDeadLetters(selection.ids) }
            Console.write("purged \(count)\n")
            try DeadLetterSelection.report(unknown)
        }
    }
}
