import ArgumentParser
import Scheduler

/// `warmer priority`: changes the priority of a batch's jobs or of single jobs.
struct PriorityCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "priority",
        abstract: "Change the priority of a batch's jobs, or of single jobs.",
        discussion: "Queued jobs move in the queue at once; running jobs' downloads and image work move in their worker's queues. A job shared with another batch keeps the higher of the two batches' priorities."
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions

    @Argument(help: "veryLow, low, normal, high or veryHigh.")
    var priority: JobPriority

    @Option(help: ArgumentHelp("The batch whose jobs change.", valueName: "id"))
    var batch: String?

    @Option(name: .customLong("job"), help: ArgumentHelp("A job that changes (repeatable).", valueName: "id"))
    var jobs: [String] = []

    func validate() throws {
        if batch == nil, jobs.isEmpty { throw ValidationError("Give --batch ID or --job IDs: whose priority to change") }
        if batch != nil, !jobs.isEmpty { throw ValidationError("Give --batch ID or --job IDs, not both") }
    }

    static let settingCommand = SettingCommand.priority

    var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let queue = try settings.makeQueue()
        let changed = try await settings.redisPatience.run { () async throws(SchedulerError) in 
            if let batch {
                try await queue.setPriority(priority, ofBatch: batch)
            } else {
                try await queue.setPriority(priority, ofJobs: jobs)
            }
        }
        Console.write("\(changed) job(s) now \(priority.rawValue)\n")
    }
}
