import ArgumentParser
import Scheduler
import WarmerInput

/// `warmer enqueue`: adds a batch of URLs to the queue and prints its id.
struct EnqueueCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "Enqueue a batch of URLs (one per line) and print the batch id.",
        discussion: "Blank lines and lines starting with # are skipped. If any other line is not an http(s) URL, nothing is enqueued and the bad lines are listed."
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions

    @Option(help: "veryLow, low, normal, high or veryHigh.")
    var priority: JobPriority = .normal

    @Option(help: "disk (raw data) or processed (decoded, processed, re-encoded).")
    var destination: JobDestination = .disk

    @OptionGroup(title: "Processing (with --destination processed)") var processing: ProcessingOptions

    @Option(help: ArgumentHelp("Batch id to create or append to (default: a new random id).", valueName: "id"))
    var batch: String?

    @Option(help: ArgumentHelp("Group to queue the batch's jobs in (a tenant or a service; an intake document's \"group\"): the groups of one priority are served round-robin. Default: the batch is a group of its own.", valueName: "name"))
    var group: String?

    @Option(name: Settings.aging.info.argumentName, help: Settings.aging.info.argumentHelp)
    var aging: String?

    @Option(name: Settings.groupBurst.info.argumentName, help: Settings.groupBurst.info.argumentHelp)
    var groupBurst: String?

    @Option(help: ArgumentHelp("Seconds a worker may spend on each job, all its download attempts included, before it fails with deadline_exceeded (an intake document's \"timeout\"); default: each worker's --job-timeout.", valueName: "seconds"))
    var timeout: Int?

    @Option(help: ArgumentHelp("Seconds: a URL whose work (URL, destination, processing) any worker completed this recently counts as completed at once, with source recent, and no job is made (an intake document's \"freshFor\"). Default: every URL is a job.", valueName: "seconds"))
    var freshFor: Int?

    @Argument(help: ArgumentHelp("File of URLs, or - for standard input.", valueName: "file"))
    var file: String

    func validate() throws {
        if let batch, !JobQueue.isValidBatchID(batch) {
            throw ValidationError("--batch must be 1-128 characters from A-Z a-z 0-9 . _ -")
        }
        if let group, !JobQueue.isValidBatchID(group) {
            throw ValidationError("--group must be 1-128 characters from A-Z a-z 0-9 . _ -")
        }
        if let timeout, !JobQueue.timeoutRange.contains(timeout) {
            throw ValidationError("--timeout must be \(JobQueue.timeoutRange.lowerBound)-\(JobQueue.timeoutRange.upperBound) seconds")
        }
        if let freshFor, !JobQueue.freshForRange.contains(freshFor) {
            throw ValidationError("--fresh-for must be \(JobQueue.freshForRange.lowerBound)-\(JobQueue.freshForRange.upperBound) seconds")
        }
    }

    static let settingCommand = SettingCommand.enqueue

    var settingFlags: GivenFlags {
        redis.givenFlags.merging(wait.givenFlags).with(Settings.aging, aging).with(Settings.groupBurst, groupBurst)
    }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        if destination == .disk, processing.isGiven { throw WarmerError.processingNeedsProcessedDestination }
        let spec = destination == .processed ? try processing.spec().description : ""
        let list = try URLList(path: file)
        try list.validate()
        var configuration = JobQueue.Configuration()
        configuration.agingInterval = .milliseconds(Int(settings[Settings.aging] * 1000))
        configuration.groupBurst = settings[Settings.groupBurst]
        let queue = try settings.makeQueue(configuration: configuration)
        // Enqueueing twice would count the URLs twice: after a broken
        // connection it is not tried again, only when Redis surely did not run it.
        let batchID = batch ?? JobQueue.makeBatchID()
        let id = try await settings.redisPatience.run(idempotent: false) { () async throws(SchedulerError) in 
            try await queue.enqueue(urls: list.urls, priority: priority, destination: destination,
                                    processing: spec, batchID: batchID, timeout: timeout.map { .seconds($0) }, group: group,
                                    freshFor: freshFor.map { .seconds($0) })
        }
        Console.write(id + "\n")
    }
}
