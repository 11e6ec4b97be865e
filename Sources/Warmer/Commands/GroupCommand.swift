import ArgumentParser
import Foundation
import Scheduler

/// `warmer group`: shows or sets a group's weight and fleet-wide limit of
/// jobs in flight (fair queueing, docs/wire-format.md "The order jobs are
/// handed out").
struct GroupCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Show or set a group's weight and its limit of jobs in flight.",
        discussion: """
            The jobs of one priority are served round-robin across groups: a batch, or the group its \
            producer named (warmer enqueue --group, an intake document's "group"). A group of weight W gets \
            W claims for each claim of a weight-1 group; a group with --limit N of its jobs running, on all \
            workers together, waits until one ends. Without an option, prints the group's settings and its \
            jobs queued and running; with one, changes it (the other setting stays as it was) and prints \
            the result. The change applies to the next claim.
            """
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions

    @Argument(help: ArgumentHelp("The group: a batch id or a producer's group name.", valueName: "name"))
    var name: String

    @Option(help: ArgumentHelp("Claims for each claim of a weight-1 group, 1-\(JobQueue.maxGroupWeight).", valueName: "n"))
    var weight: Int?

    @Option(help: ArgumentHelp("The most of its jobs running at once, fleet-wide (0 holds them back).", valueName: "n"))
    var limit: Int?

    @Flag(help: "Remove the limit of jobs in flight.")
    var noLimit = false

    @Flag(help: "Back to weight 1 and no limit.")
    var reset = false

    @Flag(help: "Print the group as a JSON object.")
    var json = false

    func validate() throws {
        if !JobQueue.isValidBatchID(name) { throw ValidationError("the group must be 1-128 characters from A-Z a-z 0-9 . _ -") }
        if let weight, !(1...JobQueue.maxGroupWeight).contains(weight) {
            throw ValidationError("--weight must be 1-\(JobQueue.maxGroupWeight)")
        }
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if limit != nil, noLimit { throw ValidationError("Give --limit N or --no-limit, not both") }
        if reset, weight != nil || limit != nil || noLimit { throw ValidationError("--reset takes no other setting") }
    }

    static let settingCommand = SettingCommand.group

    var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let queue = try settings.makeQueue()
        let changes = reset || weight != nil || limit != nil || noLimit
        let state = try await settings.redisPatience.run { () async throws(SchedulerError) in
            if changes {
                let current = try await queue.group(name)
                try await queue.setGroup(name, weight: reset ? nil : weight ?? current.weight,
                                         maxInFlight: reset || noLimit ? nil : limit ?? current.maxInFlight)
            }
            return try await queue.group(name)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Console.write(String(decoding: try encoder.encode(state), as: UTF8.self) + "\n")
        } else {
            Console.write(Self.line(state))
        }
    }

    /// `group NAME: weight 3, limit 10 in flight, 120 queued, 4 running`.
    static func line(_ state: GroupState) -> String {
        let limit = state.maxInFlight.map { "limit \($0) in flight" } ?? "no limit"
        return "group \(state.name): weight \(state.weight), \(limit), \(state.queued) queued, \(state.running) running\n"
    }
}
