import Foundation
import Hummingbird
import Scheduler
import WarmerSupport
import WarmerInput

/// `/v1/queues/{queue}/batches`: enqueue a batch (an intake document), read
/// its counters, cancel it, change its priority (`warmer enqueue`,
/// `status BATCH`, `cancel`, `priority`).
struct BatchRoutes {
    let queues: QueueDirectory
    /// The largest body, in bytes.
    let maxBody: Int
    /// How a document's `processing` is checked: as `/v1/cache` checks it.
    let processingRules: ProcessingRules

    func add(to router: Router<ServerContext>) {
        router.post("v1/queues/:queue/batches") { request, context in
            try await create(request, context)
        }
        router.get("v1/queues/:queue/batches/:batch") { _, context in
            let status = try await queues.queue(of: context).status(ofBatch: try batchID(context))
            return APIResponse.jsonData(try Self.json(status))
        }
        router.delete("v1/queues/:queue/batches/:batch") { _, context in
            let cancellation = try await queues.queue(of: context).cancel(batch: try batchID(context))
            return try APIResponse.json(CancellationBody(cancellation))
        }
        router.patch("v1/queues/:queue/batches/:batch") { request, context in
            let change = try await request.decodeJSON(PriorityChange.self, limit: maxBody)
            let changed = try await queues.queue(of: context).setPriority(try change.jobPriority(), ofBatch: try batchID(context))
            return try APIResponse.json(PriorityResult(changedJobs: changed))
        }
    }

    /// `POST …/batches`: the document checked as the intake list checks it,
    /// then enqueued in one script call. 201 for a new batch or part, 200
    /// when the same document was accepted before.
    private func create(_ request: Request, _ context: ServerContext) async throws -> Response {
        let queue = try queues.queue(of: context)
        let document = try await request.bodyBytes(limit: maxBody)
        try checkProcessing(of: document)
        let submission: JobQueue.Submission
        do {
            submission = try await queue.submit(document: document)
        } catch .invalidDocument(let code, let message) {
            throw code == "malformed_document"
                ? Problem(code, .badRequest, "The body is not JSON", detail: message)
                : Problem(code, .unprocessableContent, "The intake document is not valid", detail: message)
        }
        let status = try await queue.status(ofBatch: submission.batch)
        let location = "/v1/queues/\(queue.keys.name)/batches/\(submission.batch)"
        var body = try JSONSerialization.jsonObject(with: try Self.json(status))
        body = ["batch": submission.batch, "newJobs": submission.newJobs, "staged": submission.staged, "recent": submission.recent,
                "replayed": submission.replayed,
                "status": body]
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])
        return APIResponse.jsonData(data, status: submission.replayed ? .ok : .created, headers: [.location: location])
    }

    /// Refuses a document whose processing spec `/v1/cache` would refuse
    /// (422 `invalid_document`), before anything is enqueued; a document
    /// the intake rules refuse is left to `submit`, which says why in the
    /// intake list's words.
    private func checkProcessing(of document: [UInt8]) throws {
        guard let spec = (try? IntakeDocument(parsing: document))?.processing else { return }
        do {
            _ = try processingRules.spec(spec)
        } catch {
            throw Problem("invalid_document", .unprocessableContent, "The intake document is not valid",
                          detail: #""processing" is not a valid processing spec: "# + error.description)
        }
    }

    /// A batch's counters as JSON, each time with its UTC twin, as `warmer status BATCH` prints them.
    static func json(_ status: BatchStatus) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(status)
    }


    private func batchID(_ context: ServerContext) throws -> String {
        let id = try context.pathParameter("batch")
        guard JobQueue.isValidBatchID(id) else { throw SchedulerError.invalidBatchID(id) }
        return id
    }
}
