import Foundation
import Hummingbird
import NIOCore
import Scheduler
import ServiceLifecycle

/// The body of `GET …/summary`: once a second, one `summary` event with
/// what the dashboard draws (the `Summary` schema): the queue's state, its
/// throughput points since the previous event (the last 900 s in the
/// first; the latest second again while it fills), the first page of
/// batches and the live workers. Each is a read the CLI and the API have
/// too (`warmer status`, `status --throughput`, `batches`, `workers`).
///
/// Each stream reads Redis for itself: a few round trips a second per open
/// dashboard, bounded by `max-event-streams`.
struct SummaryStreamBody: Sendable {
    let queue: JobQueue
    /// Batches per event.
    let batchLimit: Int
    /// Time between events.
    let interval: Duration
    /// Completes when the client's connection closes: the stream ends then.
    let connectionClosed: EventLoopFuture<Void>
    /// The stream's place under `max-event-streams`, held as long as the body.
    let permit: EventStreamPermits.Permit

    /// Writes a summary a second until the client leaves or the server
    /// stops (either ends the stream within `interval`).
    func write(_ writer: inout any ResponseBodyWriter) async throws {
        try await writer.write(ServerSentEvent.opening)
        var lastSecond: Int64?
        let stopping = ShutdownFlag()
        connectionClosed.whenComplete { _ in stopping.set() }
        try await withGracefulShutdownHandler {
            while !stopping.isSet {
                try await writeSummary(after: &lastSecond, to: &writer)
            }
        } onGracefulShutdown: {
            stopping.set()
        }
        try await writer.finish(nil)
        withExtendedLifetime(permit) {}
    }

    /// One summary event (or, while Redis is away, a keep-alive comment), then the pause.
    private func writeSummary(after lastSecond: inout Int64?, to writer: inout any ResponseBodyWriter) async throws {
        var buffer = ByteBuffer()
        do {
            let (json, newest) = try await summary(after: lastSecond)
            ServerSentEvent.encode(name: "summary", json: json, into: &buffer)
            lastSecond = newest ?? lastSecond
        } catch {
            // Redis is away: keep the connection, try again next time.
            buffer = ServerSentEvent.keepAlive
        }
        try await writer.write(buffer)
        try await Task.sleep(for: interval)
    }

    /// One summary as a line of JSON, and the newest throughput second in it.
    private func summary(after lastSecond: Int64?) async throws -> (String, Int64?) {
        async let state = queue.statistics()
        async let throughput = queue.throughput(seconds: lastSecond == nil ? 900 : 5)
        async let page = queue.batches(limit: batchLimit, before: nil)
        async let workers = WorkerRegistry(queue: queue).workers()
        let points = try await throughput.points.filter { point in lastSecond.map { point.second >= $0 } ?? true }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let batches = try await page
        var pageObject: [String: Any] = [
            "batches": try batches.batches.map { try JSONSerialization.jsonObject(with: BatchRoutes.json($0)) },
        ]
        if let next = batches.next { pageObject["next"] = next }
        let object: [String: Any] = [
            "queue": try JSONSerialization.jsonObject(with: encoder.encode(try await state)),
            "throughput": ["points": try JSONSerialization.jsonObject(with: encoder.encode(points))],
            "batches": pageObject,
            "workers": try JSONSerialization.jsonObject(with: encoder.encode(try await workers)),
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return (String(decoding: data, as: UTF8.self), points.last?.second)
    }
}
