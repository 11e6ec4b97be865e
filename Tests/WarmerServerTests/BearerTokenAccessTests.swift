import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import WarmerServer

/// Bearer tokens (`AccessMiddleware`, docs/http-api.md, "Security"): every
/// operation of docs/openapi.yaml that changes something needs an admin
/// token, every read a read or admin one; no token or an unknown one is a
/// 401 with `WWW-Authenticate`, a read token on a change a 403. The probes,
/// the contract and the dashboard need none. In-process, router mode: the
/// routes that answer here need no Redis.
@Suite struct BearerTokenAccessTests {
    /// Fills in the path parameters of a documented operation's path.
    static func concrete(_ path: String) -> String {
        path.replacingOccurrences(of: "{queue}", with: "q").replacingOccurrences(of: "{batch}", with: "b")
            .replacingOccurrences(of: "{job}", with: "1")
    }

    @Test func everyChangeNeedsAnAdminTokenAndEveryReadAToken() async throws {
        let operations = try OpenAPIDocument.load().operations.sorted()
        let changes = operations.filter { !$0.hasPrefix("GET ") && !$0.hasPrefix("HEAD ") }
        let reads = operations.filter { $0.hasPrefix("GET /v1/") || $0.hasPrefix("HEAD /v1/") }
        #expect(changes.count >= 9 && reads.count >= 10, "\(operations)")
        let fixture = try InProcessServer()
        defer { fixture.remove() }
        try await fixture.routed { client in
            for operation in changes + reads {
                let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
                let method = try #require(HTTPRequest.Method(parts[0]))
                let path = Self.concrete(parts[1])
                let body = method == .get || method == .head ? nil : #"{"v":1,"urls":["https://a.example/x"],"all":true}"#
                let anonymous = try await client.send(method, path, token: nil, body: body)
                #expect(anonymous.status == .unauthorized, "\(operation): \(anonymous)")
                #expect(anonymous["WWW-Authenticate"] == #"Bearer realm="warmer""#, "\(operation): \(anonymous)")
                if method != .head { #expect(anonymous.code == "unauthorized", "\(operation): \(anonymous)") }
                let unknown = try await client.send(method, path, token: "not-a-known-token", body: body)
                #expect(unknown.status == .unauthorized, "\(operation): \(unknown)")
                let lowercase = try await client.send(method, path, token: nil, headers: ["Authorization": "bearer not-known"], body: body)
                #expect(lowercase.status == .unauthorized, "\(operation): \(lowercase)")
                if changes.contains(operation) {
                    let reader = try await client.send(method, path, token: InProcessServer.readToken, body: body)
                    #expect(reader.status == .forbidden && reader.code == "forbidden", "\(operation): \(reader)")
                }
            }
        }
    }

    @Test func aReadTokenReadsAndAnAdminTokenChanges() async throws {
        let fixture = try InProcessServer()
        defer { fixture.remove() }
        try await fixture.routed { client in
            // A read: /v1/cache answers a miss from the cache folder alone
            let miss = "/v1/cache?url=https%3A%2F%2Fa.example%2Fx.jpg"
            for token in [InProcessServer.readToken, InProcessServer.adminToken] {
                let read = try await client.send(.get, miss, token: token)
                #expect(read.status == .notFound && read.code == "not_cached", "\(read)")
            }
            // The scheme is case-insensitive
            let shouted = try await client.send(.get, miss, token: nil, headers: ["Authorization": "BEARER \(InProcessServer.readToken)"])
            #expect(shouted.status == .notFound && shouted.code == "not_cached", "\(shouted)")
            // A change with the admin token reaches its route, which reads the body
            let change = try await client.send(.patch, "/v1/queues/q/batches/b", body: #"{"priority":"urgent"}"#)
            #expect(change.status == .badRequest && change.code == "bad_request", "\(change)")
            // The probe, the contract and the dashboard need no token
            for path in ["/healthz", "/openapi.yaml", "/", "/ui", "/ui/", "/ui/dashboard.js"] {
                let open = try await client.send(.get, path, token: nil)
                #expect(open.status == .ok, "\(path): \(open)")
            }
        }
    }

    @Test func withoutTokensEveryRequestHasTheAdminScope() async throws {
        let fixture = try InProcessServer(tokens: false)
        defer { fixture.remove() }
        try await fixture.routed { client in
            let read = try await client.send(.get, "/v1/cache?url=https%3A%2F%2Fa.example%2Fx.jpg", token: nil)
            #expect(read.status == .notFound && read.code == "not_cached", "\(read)")
            let change = try await client.send(.patch, "/v1/queues/q/batches/b", token: nil, body: #"{"priority":"urgent"}"#)
            #expect(change.status == .badRequest && change.code == "bad_request", "\(change)")
        }
    }
}
