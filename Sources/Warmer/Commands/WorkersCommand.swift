import ArgumentParser
import Foundation
import Scheduler
import WarmerSupport

/// `warmer workers`: the queue's live workers, from their heartbeat records.
struct WorkersCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "workers",
        abstract: "List the queue's live workers: host, pid, version, load and last heartbeat.",
        discussion: """
            Every worker keeps a heartbeat record in Redis, refreshed three times per lease period; a worker \
            that dies drops out within a lease, one that stops cleanly at once. Without --json, one line per \
            worker: id, host, pid, version, start time (UTC), concurrency, busy slots, seconds since the last \
            heartbeat, running jobs. With --json, a JSON array of the records (docs/worker-registry.md).
            """
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions

    @Flag(help: "Print a JSON array of the worker records.")
    var json = false

    static let settingCommand = SettingCommand.workers

    var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let registry = WorkerRegistry(queue: try settings.makeQueue())
        let workers = try await settings.redisPatience.run { () async throws(SchedulerError) in try await registry.workers() }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Console.write(String(decoding: try encoder.encode(workers), as: UTF8.self) + "\n")
        } else {
            Console.write(Self.table(workers))
        }
    }

    /// The workers as an aligned text table with a header line.
    static func table(_ workers: [WorkerRecord]) -> String {
        let header = ["ID", "HOST", "PID", "VERSION", "STARTED", "CONCURRENCY", "BUSY", "HEARTBEAT", "JOBS"]
        let rows = workers.map { worker in
            [
                worker.id, worker.host, String(worker.pid), worker.version, startTime(worker.startedAt),
                String(worker.concurrency), String(worker.busySlots),
                String(format: "%.1fs ago", Double(worker.heartbeatAge) / 1000), String(worker.runningJobIDs.count),
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }.joined()
    }

    /// `2026-11-25 10:42:07`, UTC, from ms since the epoch: `UTCTime`'s
    /// ISO 8601 text shortened for a table column (a space for the `T`, no
    /// milliseconds, no `Z`); `-` before the epoch.
    static func startTime(_ milliseconds: Int) -> String {
        guard let text = UTCTime.text(milliseconds: Int64(milliseconds)) else { return "-" }
        return text.prefix(10) + " " + text.dropFirst(11).prefix(8)
    }
}
