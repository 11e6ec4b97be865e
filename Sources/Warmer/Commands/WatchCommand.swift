import ArgumentParser
import Foundation
import Logging
import Scheduler

/// `warmer watch`: live progress, or every event as a JSON line.
struct WatchCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch events live: the queue's totals and progress bars on a terminal, JSON lines otherwise.",
        discussion: """
            With --batch, replays the batch's retained events, then follows it and exits when it is finished. \
            Without --batch, follows the whole queue until interrupted. On a terminal, a header line shows the \
            queue's queued, active, delayed and dead jobs, the workers alive and `paused` while it is paused. While Redis is unreachable, restarting, \
            loading its data or busy, it waits (up to --redis-wait seconds of one outage) and goes on after the \
            last event it read.

            Exit codes: 0 every job of the batch completed; 1 the batch finished with failed, dead or cancelled \
            jobs; 3 could not follow (unknown batch, Redis unavailable for longer than --redis-wait, or any other \
            Redis error); 64 bad arguments.
            """
    )

    /// The exit code for "could not follow": distinct from 1, "the batch had failures".
    static let couldNotFollow: Int32 = 3

    @OptionGroup var general: GeneralOptions
    @OptionGroup var redis: RedisOptions
    @OptionGroup var wait: RedisWaitOptions

    @Option(help: ArgumentHelp("Follow one batch and exit when it is finished.", valueName: "id"))
    var batch: String?

    @Flag(help: "Print one JSON event per line, also on a terminal.")
    var json = false

    static let settingCommand = SettingCommand.watch

    var settingFlags: GivenFlags { redis.givenFlags.merging(wait.givenFlags) }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        let succeeded: Bool
        do {
            succeeded = try await follow(settings.makeQueue(), using: settings.makeBlockingClient(),
                                         patience: settings.redisPatience)
        } catch {
            Logger(label: "warmer.watch").error("could not follow", metadata: ["error": .string("\(error)")])
            throw ExitCode(Self.couldNotFollow)
        }
        throw ExitCode(succeeded ? 0 : 1)
    }

    /// Follows the queue (until interrupted) or the batch (until it is
    /// finished: returns whether every job completed). Throws when it cannot
    /// follow.
    private func follow(_ queue: JobQueue, using blocking: RedisClient, patience: RedisPatience) async throws -> Bool {
        let stream = EventStream(queue: queue)
        let asJSON = json || !standardOutputIsTerminal
        var board = ProgressBoard()
        var position: EventStream.Position = batch == nil ? .now : .beginning
        var batches: [String] = batch.map { [$0] } ?? []
        var patience = patience
        var header: String?
        var headerReadAt = ContinuousClock.now - .seconds(1)

        // Fails clearly for an unknown batch (after waiting for Redis if need be).
        if let batch { _ = try await patience.run { () async throws(SchedulerError) in try await queue.status(ofBatch: batch) } }
        while true {
            let events: [JobEvent]
            do {
                events = try await stream.read(batch: batch, after: position, timeout: .milliseconds(500), using: blocking)
                patience.reset()
            } catch {
                // Redis restarting or loading: follow on from the same position once it is back.
                guard await patience.waitToRetry(after: error), !Task.isCancelled else { throw error }
                continue
            }
            if let last = events.last?.streamID { position = .after(last) }
            for event in events {
                if let id = event.batchID, !batches.contains(id) { batches.append(id) }
            }
            if asJSON, !events.isEmpty {
                Console.write(events.map { URLCredentials.masked($0.jsonLine) + "\n" }.joined())
            }

            if !asJSON {
                // The queue's totals, read at most once a second (each read is one round trip).
                if ContinuousClock.now - headerReadAt >= .seconds(1) {
                    if let statistics = try? await queue.statistics() { header = ProgressBoard.header(statistics) }
                    headerReadAt = .now
                }
                board.draw(header: header, await currentStatuses(of: batches, in: queue))
            }
            // The batch is over once its batchCompleted event is read, or, when
            // its stream has expired or been trimmed, once a read finds nothing new.
            guard let batch, events.isEmpty || events.contains(where: { $0.kind == .batchCompleted }) else { continue }
            let status: BatchStatus
            do {
                status = try await queue.status(ofBatch: batch)
                patience.reset()
            } catch {
                guard await patience.waitToRetry(after: error), !Task.isCancelled else { throw error }
                continue
            }
            if status.isFinished { return status.isSuccessful }
        }
    }

    private func currentStatuses(of ids: [String], in queue: JobQueue) async -> [BatchStatus] {
        var statuses: [BatchStatus] = []
        for id in ids.suffix(20) {
            if let status = try? await queue.status(ofBatch: id) { statuses.append(status) }
        }
        return statuses
    }
}
