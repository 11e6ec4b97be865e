import ArgumentParser
import Scheduler

/// `warmer pause`: running jobs finish, no worker claims new ones.
struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause the queue: running jobs finish, nothing new is claimed."
    )

    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions
    @OptionGroup(title: "Logging") var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let queue = try redis.makeQueue()
        try await wait.patience.run { () async throws(SchedulerError) in try await queue.pause() }
        Console.write("queue \(redis.queue) paused\n")
    }
}

/// `warmer resume`: workers claim again.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused queue."
    )

    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions
    @OptionGroup(title: "Logging") var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let queue = try redis.makeQueue()
        try await wait.patience.run { () async throws(SchedulerError) in try await queue.resume() }
        Console.write("queue \(redis.queue) resumed\n")
    }
}
