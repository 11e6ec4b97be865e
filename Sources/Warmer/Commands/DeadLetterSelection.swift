import ArgumentParser
import Foundation
import Scheduler

/// Which dead letters `retry` and `purge` act on: the ids given, or `--all`.
struct DeadLetterSelection: ParsableArguments {
    @Argument(help: ArgumentHelp("Dead-letter ids (see `warmer dead list`).", valueName: "id"))
    var given: [String] = []

    @Flag(help: "Every dead letter of the queue.")
    var all = false

    func validate() throws {
        guard all != !given.isEmpty else { throw ValidationError("Give dead-letter ids or --all") }
    }

    /// The ids, or `nil` for all.
    var ids: [String]? { all ? nil : given }

    /// The given ids that are no dead letters of `queue` (none with `--all`).
    func unknown(in queue: JobQueue, patience: RedisPatience) async throws -> [String] {
        guard let ids else { return [] }
        return try await patience.run { () async throws(SchedulerError) in try await queue.unknownDeadLetters(among: ids) }
    }

    /// After acting on the others: names the ids that were no dead letters
    /// and fails the command (exit 1), so a typo is not a silent success.
    static func report(_ unknown: [String]) throws {
        guard !unknown.isEmpty else { return }
        throw WarmerError.unknownDeadLetters(unknown)
    }
}
