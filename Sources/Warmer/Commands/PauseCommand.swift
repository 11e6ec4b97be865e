import ArgumentParser
import Scheduler

/// `warmer pause`: running jobs finish, no worker claims new ones.
struct PauseCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause the queue: running jobs finish, nothing new is claimed."
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions

    static let settingCommand = SettingCommand.pause

    var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let queue = try settings.makeQueue()
        try await settings.redisPatience.run { () async throws(SchedulerError) in try await queue.pause() }
        Console.write("queue \(settings.queueName) paused\n")
    }
}
