import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import WarmerServer

/// Every refusal is an `application/problem+json` answer (RFC 9457) with
/// its status, code and `Cache-Control: no-store` (`ProblemMiddleware`):
/// bodies that are not JSON, bodies past `max-body`, paths and methods no
/// route serves. In-process, router mode: no service.
@Suite struct ProblemMiddlewareTests {
    @Test func aBodyThatIsNotJSONIsABadRequestProblem() async throws {
        let fixture = try InProcessServer()
        defer { fixture.remove() }
        try await fixture.routed { client in
            let path = "/v1/queues/q/batches/b"
            let answer = try await client.send(.patch, path, body: "{not json")
            #expect(answer.status == .badRequest && answer.code == "bad_request", "\(answer)")
            #expect(answer["Content-Type"] == "application/problem+json" && answer["Cache-Control"] == "no-store", "\(answer)")
            #expect(answer.json["type"] as? String == "urn:warmer:problem:bad_request", "\(answer)")
            #expect(answer.json["status"] as? Int == 400 && answer.json["instance"] as? String == path, "\(answer)")
            #expect((answer.json["detail"] as? String)?.hasSuffix("not JSON") == true, "\(answer)")
            // JSON of the wrong shape is refused the same way, naming the field
            let wrongType = try await client.send(.patch, path, body: #"{"priority":7}"#)
            #expect(wrongType.status == .badRequest && (wrongType.json["detail"] as? String)?.contains("priority") == true,
                    "\(wrongType)")
        }
    }

    @Test func aBodyPastTheLimitIsA413ProblemBeforeItIsRead() async throws {
        let fixture = try InProcessServer(maxBody: 64)
        defer { fixture.remove() }
        try await fixture.routed { client in
            let large = #"{"priority":"high","padding":""# + String(repeating: "x", count: 100) + #""}"#
            for (method, path) in [(HTTPRequest.Method.patch, "/v1/queues/q/batches/b"), (.post, "/v1/queues/q/batches"),
                                   (.post, "/v1/queues/q/dead")] {
                let answer = try await client.send(method, path, body: large)
                #expect(answer.status == .contentTooLarge && answer.code == "body_too_large", "\(method) \(path): \(answer)")
                #expect(answer["Content-Type"] == "application/problem+json", "\(answer)")
                #expect((answer.json["detail"] as? String)?.contains("64 bytes") == true, "\(answer)")
            }
            // Within the limit the same route reads the body (and refuses the priority)
            let small = try await client.send(.patch, "/v1/queues/q/batches/b", body: #"{"priority":"urgent"}"#)
            #expect(small.status == .badRequest && small.code == "bad_request", "\(small)")
        }
    }

    @Test func pathsAndMethodsNoRouteServesAreProblems() async throws {
        let fixture = try InProcessServer()
        defer { fixture.remove() }
        try await fixture.routed { client in
            let missing = try await client.send(.get, "/v1/nothing-here", token: InProcessServer.readToken)
            #expect(missing.status == .notFound && missing.code == "not_found", "\(missing)")
            #expect(missing["Content-Type"] == "application/problem+json" && missing["Cache-Control"] == "no-store", "\(missing)")
            let asset = try await client.send(.get, "/ui/nope.js", token: nil)
            #expect(asset.status == .notFound && asset.code == "not_found", "\(asset)")
            let badJob = try await client.send(.delete, "/v1/queues/q/jobs/abc")
            #expect(badJob.status == .badRequest && badJob.code == "bad_request", "\(badJob)")
            let badQueue = try await client.send(.patch, "/v1/queues/no%20such%20name/batches/b", body: #"{"priority":"low"}"#)
            #expect(badQueue.status == .badRequest && badQueue.code == "bad_request", "\(badQueue)")
        }
    }
}
