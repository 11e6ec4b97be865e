import Foundation
import NIOCore
import Testing
import TestSupport
@testable import WarmerServer

/// docs/openapi.yaml against the server built from it: the very document
/// at `GET /openapi.yaml` (compiled in from Sources/WarmerServer/Contract,
/// which must be the same file), and the same routes: every route
/// documented, every documented operation served. In-process: no service.
@Suite struct ContractRouteTests {
    @Test func theCompiledInContractIsDocsOpenAPIYAML() throws {
        let root = TestEnvironment.repositoryRoot
        let docs = try Data(contentsOf: root.appendingPathComponent("docs/openapi.yaml"))
        let compiled = try Data(contentsOf: root.appendingPathComponent("Sources/WarmerServer/Contract/openapi.yaml"))
        #expect(docs == compiled, "Sources/WarmerServer/Contract/openapi.yaml differs from docs/openapi.yaml: copy it over")
    }

    @Test func theServerServesTheContractWithoutAToken() async throws {
        let document = try OpenAPIDocument.load()
        let fixture = try InProcessServer()
        defer { fixture.remove() }
        try await fixture.routed { client in
            let answer = try await client.send(.get, "/openapi.yaml", token: nil)
            #expect(answer.status == .ok && answer["Content-Type"] == "application/yaml", "\(answer)")
            #expect(answer["Cache-Control"] == "no-cache", "\(answer)")
            #expect(answer.text == document.text, "GET /openapi.yaml is not docs/openapi.yaml")
        }
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsServed() throws {
        let served = Set(try APIServer.routeList())
        let documented = try OpenAPIDocument.load().operations
        #expect(served.count >= 20, "\(served.sorted())")
        let undocumented = served.subtracting(documented)
        #expect(undocumented.isEmpty, "served but not in docs/openapi.yaml: \(undocumented.sorted())")
        let missing = documented.subtracting(served)
        #expect(missing.isEmpty, "in docs/openapi.yaml but not served: \(missing.sorted())")
    }
}
