import Foundation
import NIOCore
import Testing
@testable import WarmerServer

/// What needs a real connection to the in-process server
/// (`InProcessServer.live`, on loopback): the `Host` a client sends (DNS rebinding, issue 23
/// V4) and a body streamed without a length. No Redis: every request here
/// is refused, or answered, before a route would need it.
@Suite struct LiveServerTests {
    @Test func withoutTokensOnlyLoopbackHostNamesAreServed() async throws {
        let fixture = try InProcessServer(tokens: false)
        defer { fixture.remove() }
        try await fixture.live { port in
            func get(_ path: String, host: String) async throws -> String {
                try await RawConnection(port: port).exchange("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            }
            // Given requests naming evil.example (its DNS now answers 127.0.0.1), then none is served
            for host in ["evil.example:\(port)", "evil.example", "127.0.0.1.evil.example", "localhost.evil.example:\(port)"] {
                for path in ["/v1/queues/q", "/v1/queues/q/events", "/healthz"] {
                    let answer = try await get(path, host: host)
                    #expect(RawConnection.status(of: answer) == 403 && answer.contains(#""code":"forbidden_host""#),
                            "\(host) \(path): \(answer.prefix(300))")
                }
            }
            // Every loopback name is
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "127.1.2.3", "dashboard.localhost:\(port)"] {
                let answer = try await get("/healthz", host: host)
                #expect(RawConnection.status(of: answer) == 200, "\(host): \(answer.prefix(300))")
            }
        }
    }

    @Test func aStreamedBodyPastTheLimitIsA413() async throws {
        let fixture = try InProcessServer(maxBody: 64)
        defer { fixture.remove() }
        try await fixture.live { port in
            let body = #"{"priority":"high","padding":""# + String(repeating: "x", count: 200) + #""}"#
            let request = "PATCH /v1/queues/q/batches/b HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(InProcessServer.adminToken)\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n"
            let answer = try await RawConnection(port: port).exchange(request)
            #expect(RawConnection.status(of: answer) == 413 && answer.contains(#""code":"body_too_large""#), "\(answer.prefix(400))")
            #expect(answer.contains("application/problem+json"), "\(answer.prefix(400))")
            // And a malformed chunk size is the client's error
            let broken = "PATCH /v1/queues/q/batches/b HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(InProcessServer.adminToken)\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"
            let refused = try await RawConnection(port: port).exchange(broken)
            #expect(RawConnection.status(of: refused) == 400, "\(refused.prefix(400))")
        }
    }
}
