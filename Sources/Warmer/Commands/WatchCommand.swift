import ArgumentParser
import Foundation
import Logging
import RedisKit
import Scheduler

/// `warmer watch`: live progress, or every event as a JSON line.
struct WatchCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch events live: the queue's totals and progress bars on a terminal, JSON lines otherwise.",
        discussion: """
            With --batch, replays the batch's retained events, then follows it and exits when it is finished. \
            Without --batch, follows the whole queue until interrupted. On a terminal it draws a board: a header \
            line with the queue's queued, active, delayed and dead jobs, the workers alive and `paused` while it \
            is paused, then a line per batch with its progress, counters, current rate (over the last 10 s) and \
            time left; log lines print above the board. When Redis does not answer within --redis-wait seconds \
            at start, it gives up; once it has reached Redis, it waits out a restart, a reload or a busy script \
            (up to --redis-wait seconds of one outage) and goes on after the last event it read.

            Exit codes: 0 every job of the batch completed; 1 the batch finished with failed, dead or cancelled \
            jobs; 3 could not follow (unknown batch, Redis unavailable for longer than --redis-wait, or any other \
            Redis error); 64 bad arguments.
            """
    )

    /// The exit code for "could not follow": distinct from 1, "the batch had failures".
    static let couldNotFollow: Int32 = 3
    /// The most batches the board follows (the newest).
    static let batchesShown = 20

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
        let board = json || !standardOutputIsTerminal ? nil : TerminalBoard()
        if let board, isatty(STDERR_FILENO) == 1 {
            // Log lines (a Redis outage…) print above the board rather than through it.
            settings.bootstrapLogging(writer: LogLineWriter(divertingTo: { board.print($0) }))
        } else {
            settings.bootstrapLogging()
        }
        let logger = Logger(label: "warmer.watch")
        let queue = try settings.makeQueue()
        let wait = "\(Self.text(seconds: settings[Settings.redisWait])) s (--redis-wait)"
        let patience = settings.redisPatience

        // Redis must answer once within --redis-wait; an unknown batch fails
        // here too. Without a batch, watch follows from the queue stream's
        // end now, so no event published between two reads is missed.
        let start: EventStream.Position
        do {
            if let batch {
                _ = try await patience.run { () async throws(SchedulerError) in try await queue.status(ofBatch: batch) }
                start = .beginning
            } else {
                start = try await patience.run { () async throws(SchedulerError) in try await EventStream(queue: queue).end() }
            }
            logger.debug("following", metadata: ["batch": .string(batch ?? "all"), "after": .string("\(start)")])
        } catch {
            let reason = error.isTransient ? "Redis at \(queue.client.url) did not answer within \(wait)" : "\(error)"
            logger.error("could not follow: \(reason)", metadata: ["error": .string("\(error)")])
            throw ExitCode(Self.couldNotFollow)
        }

        let succeeded: Bool
        do {
            succeeded = try await follow(queue, from: start, using: settings.makeBlockingClient(), patience: patience, board: board)
        } catch {
            let transient = (error as? SchedulerError)?.isTransient == true
            let reason = transient ? "Redis at \(queue.client.url) unavailable for longer than \(wait)" : "\(error)"
            logger.error("could not follow: \(reason)", metadata: ["error": .string("\(error)")])
            throw ExitCode(Self.couldNotFollow)
        }
        throw ExitCode(succeeded ? 0 : 1)
    }

    /// Follows the queue (until interrupted) or the batch (until it is
    /// finished: returns whether every job completed) after `start`, printing JSON lines,
    /// or drawing `board` when there is one. Throws when it cannot follow.
    private func follow(_ queue: JobQueue, from start: EventStream.Position, using blocking: RedisClient,
                        patience: RedisPatience, board: TerminalBoard?) async throws -> Bool {
        let stream = EventStream(queue: queue)
        var position = start
        var batches: [String] = batch.map { [$0] } ?? []
        var patience = patience
        var model = BoardModel(statistics: nil, batches: [])
        var rates = ProgressRates()
        var statisticsReadAt = ContinuousClock.now - .seconds(1)

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
            batches = Array(batches.suffix(Self.batchesShown))

            if let board {
                // The queue's totals, read at most once a second (each read is one round trip).
                if ContinuousClock.now - statisticsReadAt >= .seconds(1) {
                    if let statistics = try? await queue.statistics() { model.statistics = statistics }
                    statisticsReadAt = .now
                }
                model.batches = await currentProgress(of: batches, in: queue, shown: model.batches, rates: &rates)
                board.draw(model)
            } else if !events.isEmpty {
                Console.write(events.map { URLCredentials.masked($0.jsonLine) + "\n" }.joined())
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
            if status.isFinished {
                if let board {
                    model.batches = model.batches.map { $0.id == status.id ? BatchProgress(status, rate: nil) : $0 }
                    board.draw(model)
                }
                return status.isSuccessful
            }
        }
    }

    /// Each batch's counters now, with its rate over the last seconds; a
    /// batch Redis cannot tell about now keeps its `shown` line meanwhile.
    private func currentProgress(
        of ids: [String], in queue: JobQueue, shown: [BatchProgress], rates: inout ProgressRates
    ) async -> [BatchProgress] {
        var progress: [BatchProgress] = []
        for id in ids {
            guard let status = try? await queue.status(ofBatch: id) else {
                if let line = shown.first(where: { $0.id == id }) { progress.append(line) }
                continue
            }
            rates.record(status.ended, of: id, at: .now)
            progress.append(BatchProgress(status, rate: rates.rate(of: id)))
        }
        rates.keep(only: Set(ids))
        return progress
    }

    /// `60`, `0.5`: seconds as given.
    private static func text(seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }
}
