import Hummingbird
import Scheduler

/// `/v1/queues/{queue}`: the queue's state, pause and resume, its workers
/// (`warmer status`, `pause`, `resume`, `workers --json`).
struct QueueRoutes {
    let queues: QueueDirectory

    func add(to router: Router<ServerContext>) {
        router.get("v1/queues/:queue") { _, context in
            try APIResponse.json(try await queues.queue(of: context).statistics())
        }
        router.post("v1/queues/:queue/pause") { _, context in
            try await queues.queue(of: context).pause()
            return APIResponse.noContent
        }
        router.post("v1/queues/:queue/resume") { _, context in
            try await queues.queue(of: context).resume()
            return APIResponse.noContent
        }
        router.get("v1/queues/:queue/workers") { _, context in
            try APIResponse.json(try await WorkerRegistry(queue: queues.queue(of: context)).workers())
        }
    }

}
