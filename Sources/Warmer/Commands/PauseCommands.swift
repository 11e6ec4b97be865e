import ArgumentParser
import Scheduler

/// `warmer pause`: running jobs finish, no worker claims new ones.
struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause the queue: running jobs finish, nothing new is claimed."
    )

    @OptionGroup var redis: RedisOptions

    func run() async throws {
        try await redis.makeQueue().pause()
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

    func run() async throws {
        try await redis.makeQueue().resume()
        Console.write("queue \(redis.queue) resumed\n")
    }
}
