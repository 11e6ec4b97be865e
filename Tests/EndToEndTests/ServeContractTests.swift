import Foundation
import Testing
import TestSupport
@testable import Warmer
@testable import WarmerServer
import Yams

/// docs/openapi.yaml against what `warmer serve` serves: the same routes,
/// the very document at /openapi.yaml, and schemathesis's fuzzing of a
/// running server finding no 5xx and nothing off the contract.
@Suite("Serve contract")
struct ServeContractTests {
    /// `METHOD /path` of every operation in docs/openapi.yaml.
    static func documentedOperations() throws -> Set<String> {
        let text = try String(contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        return Set(paths.flatMap { path, item in
            item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
        })
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsServed() throws {
        let served = Set(try APIServer.routeList())
        let documented = try Self.documentedOperations()
        #expect(served.subtracting(documented).isEmpty, "served but not in docs/openapi.yaml: \(served.subtracting(documented).sorted())")
        let missing = documented.subtracting(served)
        #expect(missing.isEmpty, "in docs/openapi.yaml but not served: \(missing.sorted())")
    }

    @Test func theServerServesTheContractItWasBuiltWith() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue) { serve in
            let answer = try await serve.request("GET", "/openapi.yaml", token: nil)
            let file = try String(contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
            #expect(answer.status == 200 && answer.headers["content-type"] == "application/yaml")
            #expect(answer.body == file)
        }
    }

    @Test func schemathesisFindsNoServerErrorAndNothingOffTheContract() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue) { serve in
            let script = TestEnvironment.repositoryRoot.appendingPathComponent("scripts/api-fuzz.sh")
            let run = try await runProcess("/usr/bin/env", ["bash", script.path, "http://127.0.0.1:\(serve.port)", "-", "20"],
                                           environment: ["WARMER_API_TOKEN": ServeProcess.adminToken])
            #expect(run.status == 0, "schemathesis failed (\(run.status)):\n\(run.output.suffix(8000))\n\(run.error.suffix(2000))")
            // Every operation but the three event streams and GET/HEAD /v1/cache (scripts/api-fuzz.sh says why) was called.
            let selected = try #require(run.output.firstMatch(of: /Selected: (\d+)\/(\d+)/), "\(run.output.suffix(2000))")
            let tested = try #require(run.output.firstMatch(of: /Tested: (\d+)/), "\(run.output.suffix(2000))")
            #expect(Int(selected.output.1) == Int(selected.output.2).map { $0 - 5 } && tested.output.1 == selected.output.1,
                    "\(run.output.suffix(2000))")
            // Not one 5xx in the server's own log either.
            #expect(!serve.log.contains("request failed"), "\(serve.log.suffix(3000))")
        }
    }
}
