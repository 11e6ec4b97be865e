import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import WarmerServer

/// Without tokens (issue 23, V4), a page of another origin cannot change
/// anything, a body must be declared JSON, and the server's own pages,
/// command-line clients and configured `cors-origins` still can; CORS
/// answers only the configured origins. In-process, router mode, where
/// every request's authority is `localhost` (a foreign `Host`, DNS
/// rebinding, needs a real connection: `LiveServerTests`). The changes
/// refused here never reach Redis; those let through reach their route,
/// which refuses the unknown priority.
@Suite struct LoopbackGuardMiddlewareTests {
    private static let evil = "http://evil.example"
    private static let change = (path: "/v1/queues/q/batches/b", body: #"{"priority":"urgent"}"#)

    @Test func aForeignOriginCannotChangeAnything() async throws {
        let fixture = try InProcessServer(tokens: false)
        defer { fixture.remove() }
        try await fixture.routed { client in
            let document = #"{"v":1,"urls":["https://a.example/x.jpg"]}"#
            let attempts: [(HTTPRequest.Method, String, String?, [String: String])] = [
                (.post, "/v1/queues/q/pause", nil, ["Origin": Self.evil]),
                (.post, "/v1/queues/q/batches", document, ["Origin": Self.evil, "Content-Type": "text/plain"]),
                (.post, "/v1/queues/q/batches", document, ["Origin": Self.evil]),
                (.post, "/v1/queues/q/dead", #"{"all":true}"#, ["Origin": Self.evil]),
                (.delete, "/v1/queues/q/batches/b", nil, ["Origin": Self.evil]),
                (.patch, Self.change.path, Self.change.body, ["Origin": "null"]),
                (.post, "/v1/queues/q/resume", nil, ["Origin": "http://localhost.evil.example"]),
            ]
            for (method, path, body, headers) in attempts {
                let answer = try await client.send(method, path, token: nil, headers: headers, body: body)
                #expect(answer.status == .forbidden && answer.code == "forbidden_origin", "\(method) \(path) \(headers): \(answer)")
            }
        }
    }

    @Test func aBodyNotDeclaredJSONIsRefusedEvenWithoutAnOrigin() async throws {
        let fixture = try InProcessServer(tokens: false)
        defer { fixture.remove() }
        try await fixture.routed { client in
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                let answer = try await client.send(.patch, Self.change.path, token: nil, headers: ["Content-Type": type], body: Self.change.body)
                #expect(answer.status == .unsupportedMediaType && answer.code == "unsupported_media_type", "\(type): \(answer)")
            }
            let declared = try await client.send(.patch, Self.change.path, token: nil, headers: ["Content-Type": "Application/JSON; charset=utf-8"],
                                                 body: Self.change.body)
            #expect(declared.status == .badRequest && declared.code == "bad_request", "\(declared)")
        }
    }

    @Test func theServersOwnPagesCommandLineClientsAndConfiguredOriginsMayChange() async throws {
        let fixture = try InProcessServer(tokens: false, corsOrigins: ["https://ops.example.com"])
        defer { fixture.remove() }
        try await fixture.routed { client in
            for origin in [nil, "http://localhost", "https://ops.example.com"] {
                let answer = try await client.send(.patch, Self.change.path, token: nil, headers: origin.map { ["Origin": $0] } ?? [:],
                                                   body: Self.change.body)
                #expect(answer.status == .badRequest && answer.code == "bad_request", "\(origin ?? "no origin"): \(answer)")
                if let origin, origin.hasPrefix("https://") {
                    // (A problem answered to a configured origin carries CORS, and is no 500.)
                    #expect(answer["Access-Control-Allow-Origin"] == origin, "\(answer)")
                }
            }
            // A cross-origin read is served, without a CORS header for a browser to hand it to the page
            let read = try await client.send(.get, "/healthz", token: nil, headers: ["Origin": Self.evil])
            #expect(read.status == .ok && read["Access-Control-Allow-Origin"] == nil, "\(read)")
        }
    }

    @Test func withTokensTheGuardStandsAsideForTheTokenCheck() async throws {
        let fixture = try InProcessServer(tokens: true)
        defer { fixture.remove() }
        try await fixture.routed { client in
            let answer = try await client.send(.patch, Self.change.path, headers: ["Origin": Self.evil, "Content-Type": "text/plain"],
                                               body: Self.change.body)
            #expect(answer.status == .badRequest && answer.code == "bad_request", "\(answer)")
        }
    }

    @Test func corsAnswersTheConfiguredOriginsOnlyAndIsOffByDefault() async throws {
        let off = try InProcessServer()
        defer { off.remove() }
        try await off.routed { client in
            let answer = try await client.send(.get, "/healthz", token: nil, headers: ["Origin": "https://ops.example.com"])
            #expect(answer.status == .ok && answer["Access-Control-Allow-Origin"] == nil, "\(answer)")
        }
        let on = try InProcessServer(corsOrigins: ["https://ops.example.com"])
        defer { on.remove() }
        try await on.routed { client in
            let preflight = try await client.send(.options, "/v1/queues/q/batches", token: nil, headers: [
                "Origin": "https://ops.example.com", "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type",
            ])
            #expect(preflight["Access-Control-Allow-Origin"] == "https://ops.example.com", "\(preflight)")
            #expect(preflight["Access-Control-Allow-Methods"]?.contains("POST") == true, "\(preflight)")
            #expect(preflight["Access-Control-Allow-Headers"]?.lowercased().contains("authorization") == true, "\(preflight)")
            let allowed = try await client.send(.get, "/healthz", token: nil, headers: ["Origin": "https://ops.example.com"])
            #expect(allowed["Access-Control-Allow-Origin"] == "https://ops.example.com", "\(allowed)")
            // Fetch reads Access-Control-Expose-Headers on the actual answer, not the
            // preflight; Hummingbird 2.28's CORSMiddleware sends it on preflights only.
            withKnownIssue("Location and ETag are not exposed to a configured origin's page") {
                #expect(allowed["Access-Control-Expose-Headers"]?.contains("ETag") == true, "\(allowed)")
            }
            let other = try await client.send(.get, "/healthz", token: nil, headers: ["Origin": "https://elsewhere.example"])
            #expect(other.status == .ok && other["Access-Control-Allow-Origin"] == nil, "\(other)")
            let otherPreflight = try await client.send(.options, "/v1/queues/q/batches", token: nil, headers: [
                "Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST",
            ])
            #expect(otherPreflight["Access-Control-Allow-Origin"] == nil, "\(otherPreflight)")
        }
    }
}
