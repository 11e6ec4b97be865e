import ArgumentParser
import DigestKit
import PipelineEngine
import WarmerSupport

/// The `warmer` executable.
@main
struct WarmerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warmer",
        abstract: "Warms image caches from URLs queued in Redis.",
        discussion: "Producers enqueue batches of image URLs; workers claim them by priority, download them into the disk cache and publish every job's lifecycle events. See docs/ for the wire format and the cache layout.",
        version: WarmerVersion.current,
        subcommands: [
            WorkerCommand.self, EnqueueCommand.self, WatchCommand.self, StatusCommand.self, BatchesCommand.self,
            CancelCommand.self, PriorityCommand.self, GroupCommand.self, PauseCommand.self, ResumeCommand.self, DeadCommand.self,
            WorkersCommand.self, WarmCommand.self, ServeCommand.self, CacheCommand.self, SettingsCommand.self,
        ]
    )

    /// Runs the command line, with `--flag -5` read as `--flag=-5`
    /// (`NegativeNumberArguments`), so that a negative number reaches the
    /// flag and is refused with its range rather than taken for an option.
    static func main() async {
        // Before libcurl or anything else initialises libcrypto: its exit-time
        // clean-up must not free what a thread still hashing would read.
        MessageDigest.keepLibraryUntilExit()
        await main(NegativeNumberArguments.joined(Array(CommandLine.arguments.dropFirst())))
    }
}
