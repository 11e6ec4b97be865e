import Hummingbird
import Scheduler

/// `/v1/queues/{queue}/jobs/{job}`: cancel one job in every batch it
/// serves, change its priority (`warmer cancel --job`, `priority --job`).
struct JobRoutes {
    let queues: QueueDirectory
    /// The largest body, in bytes.
    let maxBody: Int

    func add(to router: Router<ServerContext>) {
        router.delete("v1/queues/:queue/jobs/:job") { _, context in
            let cancellation = try await queues.queue(of: context).cancel(jobs: [try Self.jobID(context)])
            return try APIResponse.json(CancellationBody(cancellation))
        }
        router.patch("v1/queues/:queue/jobs/:job") { request, context in
            let change = try await request.decodeJSON(PriorityChange.self, limit: maxBody)
            let changed = try await queues.queue(of: context).setPriority(try change.jobPriority(), ofJobs: [try Self.jobID(context)])
            return try APIResponse.json(PriorityResult(changedJobs: changed))
        }
    }


    /// The job id of the path: the queue's ids are whole numbers.
    static func jobID(_ context: ServerContext) throws -> String {
        let id = try context.pathParameter("job")
        guard (1...20).contains(id.utf8.count), id.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw Problem.badRequest("a job id is a whole number")
        }
        return id
    }
}
