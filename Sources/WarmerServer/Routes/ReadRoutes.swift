import Foundation
import Hummingbird
import Scheduler
import WarmerSupport

/// The reads the dashboard is made of, each also a CLI command: the batch
/// list (`warmer batches`), the queue's throughput (`status --throughput`),
/// a batch's failures (`status BATCH --failures`), a job's record
/// (`status --job ID`), and the once-a-second summary stream of them all.
struct ReadRoutes {
    let queues: QueueDirectory
    let permits: EventStreamPermits

    func add(to router: Router<ServerContext>) {
        router.get("v1/queues/:queue/batches") { request, context in
            let limit = try request.integerQuery("limit", in: 1...500, default: 50)
            let before = request.uri.queryParameters["before"].map(String.init)
            if let before, before.utf8.count > 200 { throw Problem.badRequest("before is not a cursor of this API") }
            let page = try await queues.queue(of: context).batches(limit: limit, before: before)
            var object: [String: Any] = ["batches": try page.batches.map { try JSONSerialization.jsonObject(with: BatchRoutes.json($0)) }]
            if let next = page.next { object["next"] = next }
            return APIResponse.jsonData(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        }
        router.get("v1/queues/:queue/throughput") { request, context in
            let seconds = try request.integerQuery("seconds", in: 1...900, default: 900)
            return try APIResponse.json(try await queues.queue(of: context).throughput(seconds: seconds))
        }
        router.get("v1/queues/:queue/batches/:batch/failures") { request, context in
            let limit = try request.integerQuery("limit", in: 1...1000, default: 100)
            let batch = try context.pathParameter("batch")
            guard JobQueue.isValidBatchID(batch) else { throw SchedulerError.invalidBatchID(batch) }
            return try APIResponse.json(try await queues.queue(of: context).failures(ofBatch: batch, limit: limit))
        }
        router.get("v1/queues/:queue/jobs/:job") { _, context in
            let id = try JobRoutes.jobID(context)
            guard let job = try await queues.queue(of: context).job(id: id) else {
                throw Problem("job_not_found", .notFound, "No such job", detail: "job \(id) does not exist (or its retention ended)")
            }
            return try APIResponse.json(job)
        }
        router.get("v1/queues/:queue/summary") { request, context in
            let queue = try queues.queue(of: context)
            let limit = try request.integerQuery("batches", in: 1...500, default: 50)
            let body = SummaryStreamBody(queue: queue, batchLimit: limit, interval: .seconds(1), connectionClosed: context.connectionClosed,
                                         permit: try permits.acquire(caller: context.caller))
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store", .accelBuffering: "no"],
                body: ResponseBody { writer in try await body.write(&writer) })
        }
    }

}
