import ArgumentParser
import Foundation
import Scheduler

/// `warmer watch`: live progress, or every event as a JSON line.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch events live: progress bars on a terminal, JSON lines otherwise.",
        discussion: "With --batch, replays the batch's retained events, then follows it and exits when it is finished: 0 if every job completed, 1 otherwise. Without --batch, follows the whole queue until interrupted. It survives a Redis restart: it reconnects and goes on after the last event it read."
    )

    @OptionGroup var redis: RedisOptions

    @Option(help: ArgumentHelp("Follow one batch and exit when it is finished.", valueName: "id"))
    var batch: String?

    @Flag(help: "Print one JSON event per line, also on a terminal.")
    var json = false

    func run() async throws {
        let queue = try redis.makeQueue()
        let stream = EventStream(queue: queue)
        let blocking = try redis.makeBlockingClient()
        let asJSON = json || !standardOutputIsTerminal
        var board = ProgressBoard()
        var position: EventStream.Position = batch == nil ? .now : .beginning
        var batches: [String] = batch.map { [$0] } ?? []

        if let batch { _ = try await queue.status(ofBatch: batch) }  // fails clearly for an unknown batch
        var backoff = Backoff()
        while true {
            let events: [JobEvent]
            do {
                events = try await stream.read(batch: batch, after: position, timeout: .milliseconds(500), using: blocking)
                backoff.reset()
            } catch {
                // Redis restarting: follow on from the same position once it is back.
                try await waitForRedis(after: error, backoff: &backoff)
                continue
            }
            if let last = events.last?.streamID { position = .after(last) }
            for event in events {
                if let id = event.batchID, !batches.contains(id) { batches.append(id) }
            }
            if asJSON, !events.isEmpty {
                Console.write(events.map { $0.jsonLine + "\n" }.joined())
            }

            if !asJSON { board.draw(await currentStatuses(of: batches, in: queue)) }
            // The batch is over once its batchCompleted event is read, or, when
            // its stream has expired or been trimmed, once a read finds nothing new.
            guard let batch, events.isEmpty || events.contains(where: { $0.kind == .batchCompleted }) else { continue }
            let status: BatchStatus
            do {
                status = try await queue.status(ofBatch: batch)
            } catch {
                try await waitForRedis(after: error, backoff: &backoff)
                continue
            }
            if status.isFinished { throw ExitCode(status.isSuccessful ? 0 : 1) }
        }
    }

    /// Rethrows `error` unless Redis is unreachable; then logs and waits.
    private func waitForRedis(after error: SchedulerError, backoff: inout Backoff) async throws {
        guard case .redis(.connection(let reason)) = error else { throw error }
        Log(component: "watch").warning("Redis unavailable, retrying", ["error": reason, "in": "\(backoff.delay)"])
        await backoff.wait()
        try Task.checkCancellation()
    }

    private func currentStatuses(of ids: [String], in queue: JobQueue) async -> [BatchStatus] {
        var statuses: [BatchStatus] = []
        for id in ids.suffix(20) {
            if let status = try? await queue.status(ofBatch: id) { statuses.append(status) }
        }
        return statuses
    }
}
