import Foundation
import Hummingbird
import Scheduler

/// `/v1/queues/{queue}/dead`: list, retry and purge dead letters
/// (`warmer dead list --json`, `dead retry`, `dead purge`).
struct DeadLetterRoutes {
    let queues: QueueDirectory
    /// The largest body, in bytes.
    let maxBody: Int

    /// The body of `POST …/dead`: `{"ids": […]}` or `{"all": true}`.
    private struct Selection: Decodable {
        let ids: [String]?
        let all: Bool?
    }

    private struct Result: Encodable {
        /// Entries retried or purged.
        let count: Int
    }

    func add(to router: Router<ServerContext>) {
        router.get("v1/queues/:queue/dead") { request, context in
            let queue = try queues.queue(of: context)
            let limit = try request.integerQuery("limit", in: 1...1000, default: 100)
            let letters = try await queue.deadLetters(limit: limit)
            let records = try letters.map { try JSONSerialization.jsonObject(with: Data(DeadLetterRecord($0).jsonLine().utf8)) }
            let body: [String: Any] = ["count": try await queue.deadLetterCount(), "deadLetters": records]
            return APIResponse.jsonData(try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]))
        }
        router.post("v1/queues/:queue/dead") { request, context in
            let selection = try await request.decodeJSON(Selection.self, limit: maxBody)
            let ids = try Self.ids(selection.ids, all: selection.all ?? false)
            return try APIResponse.json(Result(count: try await queues.queue(of: context).retryDeadLetters(ids)))
        }
        router.delete("v1/queues/:queue/dead") { request, context in
            let given = request.uri.queryParameters.getAll("id")
            let all = request.uri.queryParameters["all"].map { $0 == "true" || $0 == "1" } ?? false
            let ids = try Self.ids(given.isEmpty ? nil : given, all: all)
            return try APIResponse.json(Result(count: try await queues.queue(of: context).purgeDeadLetters(ids)))
        }
    }

    /// The ids to act on (`nil`: all of them), or a 400 unless exactly one
    /// of `ids` and `all` is given.
    private static func ids(_ ids: [String]?, all: Bool) throws -> [String]? {
        switch (ids, all) {
        case (let ids?, false) where (1...1000).contains(ids.count) && ids.allSatisfy({ (1...64).contains($0.utf8.count) }):
            return ids
        case (nil, true):
            return nil
        default:
            throw Problem.badRequest("give either 1 to 1000 ids (each 1-64 characters) or all, not both")
        }
    }

}
