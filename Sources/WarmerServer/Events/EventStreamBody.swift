import Hummingbird
import NIOCore
import Scheduler
import ServiceLifecycle

/// The body of one event stream response: the history a client asked
/// for, then the live events from the shared reader, with keep-alive
/// comments; for a batch, up to its `batchCompleted`.
///
/// Gap-free and repeat-free: the subscription is made first, so the live
/// events start right after its `position`; the history is read with
/// `XRANGE` up to that position, and live events at or before the last
/// one written are skipped.
struct EventStreamBody: Sendable {
    let events: EventStream
    /// The batch followed; `nil` for the queue's stream.
    let batch: String?
    /// Where to start: after this id; `nil` for "from now on".
    let start: StreamID?
    let tails: StreamTails
    let tail: StreamTail
    let subscription: StreamTail.Subscription
    /// Completes when the client's connection closes: the stream ends then,
    /// without waiting for its next write to fail.
    let connectionClosed: EventLoopFuture<Void>
    /// The stream's place under `max-event-streams`, held as long as the body.
    let permit: EventStreamPermits.Permit

    /// History pages are read this many events at a time.
    private static let pageSize = 500

    func write(_ writer: inout any ResponseBodyWriter) async throws {
        do {
            try await writer.write(ServerSentEvent.opening)
            var last = subscription.position
            var ended = false
            if let start, start < subscription.position {
                ended = try await writeHistory(after: start, upTo: subscription.position, to: &writer)
            } else if let start {
                last = start
            }
            if !ended, let batch, try await events.queue.status(ofBatch: batch).isFinished {
                // Every event of a finished batch is in its stream already.
                _ = try await writeHistory(after: last, upTo: nil, to: &writer)
                ended = true
            }
            if !ended { try await writeLive(after: last, to: &writer) }
        } catch {
            await tails.unsubscribe(subscription.id, from: tail)
            throw error
        }
        await tails.unsubscribe(subscription.id, from: tail)
        try await writer.finish(nil)
        withExtendedLifetime(permit) {}
    }

    /// Writes the live events after `start` until the batch's
    /// `batchCompleted`, the client leaving (its connection closing ends the
    /// subscription), or the server stopping: a graceful shutdown (SIGTERM)
    /// ends the subscription, so the response ends cleanly and the client
    /// reconnects, with `Last-Event-ID`, to another replica.
    private func writeLive(after start: StreamID, to writer: inout any ResponseBodyWriter) async throws {
        let (tail, id) = (tail, subscription.id)
        connectionClosed.whenComplete { _ in tail.unsubscribe(id) }
        var last = start
        var ended = false
        var messages = subscription.messages.makeAsyncIterator()
        try await withGracefulShutdownHandler {
            while !ended, let message = await messages.next() {
                switch message {
                case .idle:
                    try await writer.write(ServerSentEvent.keepAlive)
                case .events(let encoded):
                    guard let (bytes, lastID, completes) = encoded.slice(after: last, endingAtCompletion: batch != nil) else { continue }
                    try await writer.write(bytes)
                    last = lastID
                    ended = completes
                }
            }
        } onGracefulShutdown: {
            tail.unsubscribe(id)
        }
    }

    /// Writes the retained events after `start` (up to `end` when given);
    /// returns whether a `batchCompleted` of the followed batch was among them.
    private func writeHistory(after start: StreamID, upTo end: StreamID?, to writer: inout any ResponseBodyWriter) async throws -> Bool {
        var cursor = start
        while true {
            let page = try await events.range(batch: batch, after: cursor.description, count: Self.pageSize)
            var buffer = ByteBuffer()
            var reachedEnd = page.count < Self.pageSize
            for event in page {
                guard let id = event.streamID.flatMap({ StreamID($0) }) else { continue }
                if let end, id > end {
                    reachedEnd = true
                    break
                }
                ServerSentEvent.encode(event, into: &buffer)
                cursor = id
                if batch != nil, event.kind == .batchCompleted {
                    try await writer.write(buffer)
                    return true
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
            if reachedEnd || cursor == end { return false }
        }
    }
}
