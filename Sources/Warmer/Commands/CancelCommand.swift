import ArgumentParser
import Scheduler

/// `warmer cancel`: cancels a batch, or single jobs, on every worker.
struct CancelCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a batch, or single jobs, everywhere.",
        discussion: "Queued jobs leave the queue at once; running jobs are aborted by whichever worker runs them, on any host, within moments. Every URL not yet ended counts as cancelled in its batch, with a cancelled event. Work another batch still needs goes on for that batch."
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions

    @Argument(help: ArgumentHelp("The batch to cancel.", valueName: "batch"))
    var batch: String?

    @Option(name: .customLong("job"), help: ArgumentHelp("A job to cancel in all its batches (repeatable).", valueName: "id"))
    var jobs: [String] = []

    func validate() throws {
        if batch == nil, jobs.isEmpty { throw ValidationError("Give a batch id or --job IDs: nothing to cancel") }
        if batch != nil, !jobs.isEmpty { throw ValidationError("Give a batch id or --job IDs, not both") }
    }

    static let settingCommand = SettingCommand.cancel

    var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let queue = try settings.makeQueue()
        let result = try await settings.redisPatience.run { () async throws(SchedulerError) in 
            if let batch { try await queue.cancel(batch: batch) } else { try await queue.cancel(jobs: jobs) }
        }
        if result.alreadyFinished, let batch {
            Console.write("batch \(batch) had already finished: nothing cancelled, the batch is unchanged\n")
            return
        }
        Console.write("cancelled \(result.cancelledJobs) job(s); \(result.abortedRunningJobs) running job(s) told to stop\n")
    }
}
