import ArgumentParser
import Foundation
import Scheduler

/// `warmer status [BATCH]`: a batch's counters, or the queue's state, as JSON.
struct StatusCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print a batch's counters, or without a batch the queue's state, as JSON."
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions

    @Argument(help: "The batch id; without it, the queue's queued/active/delayed/dead counts, intake backlog, pause and live workers.")
    var batch: String?

    static let settingCommand = SettingCommand.status

    var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let queue = try settings.makeQueue()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = if let batch {
            try Self.withUTCTimes(encoder.encode(
                try await settings.redisPatience.run { () async throws(SchedulerError) in try await queue.status(ofBatch: batch) }))
        } else {
            try encoder.encode(try await settings.redisPatience.run { () async throws(SchedulerError) in try await queue.statistics() })
        }
        Console.write(String(decoding: data, as: UTF8.self) + "\n")
    }

    /// Adds, beside each epoch-millisecond time of a batch (`createdAt`,
    /// `finishedAt`, `cancelledAt`), the same instant in ISO 8601 UTC
    /// (`createdAtUTC`: `2026-11-25T13:30:00.123Z`), for people reading it.
    static func withUTCTimes(
        _ json: Data, options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys]
    ) throws -> Data {
        guard var object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else { return json }
        for key in ["createdAt", "finishedAt", "cancelledAt"] {
            guard let milliseconds = (object[key] as? NSNumber)?.int64Value,
                  let text = UTCTime.text(milliseconds: milliseconds) else { continue }
            object[key + "UTC"] = text
        }
        return try JSONSerialization.data(withJSONObject: object, options: options)
    }
}
