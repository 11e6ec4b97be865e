import ArgumentParser
import Scheduler

/// `warmer resume`: workers claim again.
struct ResumeCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused queue."
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions

    static let settingCommand = SettingCommand.resume

    var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let queue = try settings.makeQueue()
        try await settings.redisPatience.run { () async throws(SchedulerError) in try await queue.resume() }
        Console.write("queue \(settings.queueName) resumed\n")
    }
}
