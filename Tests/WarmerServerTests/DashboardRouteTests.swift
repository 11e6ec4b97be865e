import Foundation
import NIOCore
import Testing
import TestSupport
@testable import WarmerServer

/// The dashboard as the server serves it (docs/dashboard.md): the page at
/// `/`, `/ui`, `/ui/` and every file of Sources/WarmerServer/Dashboard/Assets
/// at `/ui/NAME`, byte for byte, with its content type, its tag and the
/// security headers (a Content-Security-Policy that no page may frame),
/// without a token. In-process, router mode: no service.
@Suite struct DashboardRouteTests {
    static let contentTypes = DashboardAssetTests.contentTypes

    /// The assets folder's files by name.
    static func files() throws -> [String: Data] { try DashboardAssetTests.files() }

    @Test func everyAssetIsServedWithItsTypeAndTheSecurityHeadersWithoutAToken() async throws {
        let files = try Self.files()
        #expect(files.keys.contains("index.html") && files.keys.contains("dashboard.js") && files.keys.contains("dashboard.css"))
        let fixture = try InProcessServer()
        defer { fixture.remove() }
        try await fixture.routed { client in
            let pages = ["/", "/ui", "/ui/", "/ui/index.html"].map { ($0, "index.html") }
            for (path, name) in pages + files.keys.map({ ("/ui/\($0)", $0) }) {
                let answer = try await client.send(.get, path, token: nil)
                let fileExtension = String(name.split(separator: ".").last ?? "")
                #expect(answer.status == .ok, "\(path): \(answer)")
                #expect(answer["Content-Type"] == Self.contentTypes[fileExtension], "\(path): \(answer)")
                #expect(Data(answer.body.readableBytesView) == files[name], "\(path) is not \(name)")
                #expect(answer["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true, "\(path): \(answer)")
                #expect(answer["Content-Security-Policy"]?.contains("script-src 'self'") == true, "\(path): \(answer)")
                #expect(answer["Content-Security-Policy"]?.contains("default-src 'none'") == true, "\(path): \(answer)")
                #expect(answer["X-Frame-Options"] == "DENY" && answer["X-Content-Type-Options"] == "nosniff", "\(path): \(answer)")
                #expect(answer["Referrer-Policy"] == "no-referrer" && answer["Cache-Control"] == "no-cache", "\(path): \(answer)")
                #expect(answer["ETag"]?.hasPrefix("\"") == true, "\(path): \(answer)")
            }
            // No other name is served, and the API still needs a token
            for path in ["/ui/nope.js", "/ui/index.htm", "/ui/..%2FPackage.swift"] {
                let missing = try await client.send(.get, path, token: nil)
                #expect(missing.status == .notFound, "\(path): \(missing)")
            }
            #expect(try await client.send(.get, "/v1/queues/q", token: nil).status == .unauthorized)
        }
    }

    @Test func aKnownTagIsANotModifiedWithTheSecurityHeaders() async throws {
        let fixture = try InProcessServer()
        defer { fixture.remove() }
        try await fixture.routed { client in
            let first = try await client.send(.get, "/ui/api.js", token: nil)
            let tag = try #require(first["ETag"])
            let again = try await client.send(.get, "/ui/api.js", token: nil, headers: ["If-None-Match": "\"other\", \(tag)"])
            #expect(again.status == .notModified && again.body.readableBytes == 0 && again["ETag"] == tag, "\(again)")
            #expect(again["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true, "\(again)")
            let other = try await client.send(.get, "/ui/sse.js", token: nil, headers: ["If-None-Match": tag])
            #expect(other.status == .ok && other["ETag"] != tag, "\(other)")
        }
    }

    @Test func thePageOpensTheConfiguredQueue() async throws {
        let fixture = try InProcessServer { $0.defaultQueue = "images" }
        defer { fixture.remove() }
        try await fixture.routed { client in
            let redirect = try await client.send(.get, "/", token: nil)
            #expect(redirect.status == .found && redirect["Location"] == "/?queue=images", "\(redirect)")
            let named = try await client.send(.get, "/?queue=other", token: nil)
            #expect(named.status == .ok && named["Content-Type"] == "text/html; charset=utf-8", "\(named)")
        }
    }
}
