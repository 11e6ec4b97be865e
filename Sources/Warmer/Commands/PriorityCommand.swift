import ArgumentParser
import Scheduler

/// `warmer priority`: changes the priority of a batch's jobs or of single jobs.
struct PriorityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "priority",
        abstract: "Change the priority of a batch's jobs, or of single jobs.",
        discussion: "Queued jobs move in the queue at once; running jobs' downloads and image work move in their worker's queues. A job shared with another batch keeps the higher of the two batches' priorities."
    )

    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions
    @OptionGroup(title: "Logging") var logging: LoggingOptions

    @Argument(help: "veryLow, low, normal, high or veryHigh.")
    var priority: JobPriority

    @Option(help: ArgumentHelp("The batch whose jobs change.", valueName: "id"))
    var batch: String?

    @Option(name: .customLong("job"), help: ArgumentHelp("A job that changes (repeatable).", valueName: "id"))
    var jobs: [String] = []

    func validate() throws {
        guard (batch == nil) != jobs.isEmpty else { throw ValidationError("Give --batch ID or --job IDs, not both") }
    }

    func run() async throws {
        logging.bootstrap()
        let queue = try redis.makeQueue()
        let changed = try await wait.patience.run { () async throws(SchedulerError) in 
            if let batch {
                try await queue.setPriority(priority, ofBatch: batch)
            } else {
                try await queue.setPriority(priority, ofJobs: jobs)
            }
        }
        Console.write("\(changed) job(s) now \(priority.rawValue)\n")
    }
}
