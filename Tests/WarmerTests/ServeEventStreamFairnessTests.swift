import Foundation
import Testing
import TestSupport

/// Issue 23, V5: one reader cannot hold every event-stream place. Past
/// `max-event-streams-per-token` its next stream is refused 429 with
/// `Retry-After`, while another token's streams are still served.
@Suite("Serve event stream fairness")
struct ServeEventStreamFairnessTests {
    @Test func oneTokenHoldsAtMostItsShareOfTheStreams() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue, arguments: ["--max-event-streams", "10", "--max-event-streams-per-token", "2"]) { serve in
            // Given two streams open with the read token
            let path = "/v1/queues/\(queue.name)/events"
            let open = try (0..<2).map { _ in try serve.events(path) }
            for client in open { #expect(try await client.status() == 200) }

            // Then its third is refused with 429 too_many_streams and Retry-After
            let third = try await serve.events(path).end()
            #expect(third.status == 429, "\(third.body)")
            #expect(third.headers["retry-after"].flatMap(Int.init).map { $0 > 0 } == true, "\(third.headers)")
            #expect(third.body.contains("too_many_streams") && third.body.contains("max-event-streams-per-token"), "\(third.body)")

            // And another token's stream is served meanwhile
            let admin = try EventStreamClient(port: serve.port, path: path, headers: ["Authorization": "Bearer \(ServeProcess.adminToken)"])
            #expect(try await admin.status() == 200)
            for client in open + [admin] { client.close() }
        }
    }
}
