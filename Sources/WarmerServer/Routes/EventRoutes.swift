import Hummingbird
import Scheduler

/// `GET …/events` and `GET …/batches/{id}/events`: a queue's or a batch's
/// events as Server-Sent Events (docs/http-api.md, "Event streams";
/// `warmer watch`). A batch's stream starts at its first retained event
/// and ends after `batchCompleted`; the queue's starts now and goes on.
/// Either resumes after `Last-Event-ID`.
struct EventRoutes {
    let queues: QueueDirectory
    let tails: StreamTails
    let permits: EventStreamPermits

    func add(to router: Router<ServerContext>) {
        router.get("v1/queues/:queue/events") { request, context in
            try await stream(request, context, batch: nil)
        }
        router.get("v1/queues/:queue/batches/:batch/events") { request, context in
            let batch = try context.pathParameter("batch")
            guard JobQueue.isValidBatchID(batch) else { throw SchedulerError.invalidBatchID(batch) }
            return try await stream(request, context, batch: batch)
        }
    }

    private func stream(_ request: Request, _ context: ServerContext, batch: String?) async throws -> Response {
        let queue = try queues.queue(of: context)
        var start: StreamID? = batch == nil ? nil : .zero
        if let text = request.headers[.lastEventID] {
            guard let id = StreamID(text) else { throw Problem.badRequest("Last-Event-ID must be a stream id, <ms>-<seq>") }
            start = id
        }
        if let batch { _ = try await queue.status(ofBatch: batch) }
        let permit = try permits.acquire(caller: context.caller)
        let (tail, subscription) = try await tails.subscribe(queue: queue, batch: batch)
        let body = EventStreamBody(events: EventStream(queue: queue), batch: batch, start: start, tails: tails, tail: tail,
                                   subscription: subscription, connectionClosed: context.connectionClosed, permit: permit)
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store", .accelBuffering: "no"],
            body: ResponseBody { writer in try await body.write(&writer) })
    }
}
