import Foundation
import NIOCore
import Testing
import TestSupport
@testable import WarmerServer

/// schemathesis (scripts/api-fuzz.sh) against a live in-process server
/// (`InProcessServer.live`, on loopback) over the test Redis: generated
/// valid and invalid requests to every operation of docs/openapi.yaml find
/// no 5xx and no answer off the contract (status, content type, schema).
@Suite(.enabled(if: apiFuzzExamples != "0", "fuzzing is make test's, not make test-fast's (WARMER_API_FUZZ_EXAMPLES=0)"))
struct ContractFuzzLiveTests {
    @Test func schemathesisFindsNoServerErrorAndNothingOffTheContract() async throws {
        let fixture = try InProcessServer(redis: true)
        defer { fixture.remove() }
        try await fixture.live { port in
            let run = try await ScriptRun.bash("scripts/api-fuzz.sh", ["http://localhost:\(port)", "-", apiFuzzExamples],
                                               environment: ["WARMER_API_TOKEN": InProcessServer.adminToken], timeout: .seconds(900))
            #expect(run.status == 0, "schemathesis failed (\(run.status)):\n\(run.output.suffix(8000))")
            // Every operation but the three event streams and GET/HEAD /v1/cache (scripts/api-fuzz.sh says why) was called.
            let selected = try #require(run.output.firstMatch(of: /Selected: (\d+)\/(\d+)/), "\(run.output.suffix(2000))")
            let tested = try #require(run.output.firstMatch(of: /Tested: (\d+)/), "\(run.output.suffix(2000))")
            #expect(Int(selected.output.1) == Int(selected.output.2).map { $0 - 5 } && tested.output.1 == selected.output.1,
                    "\(run.output.suffix(2000))")
        }
    }
}

/// Generated examples per operation in schemathesis's fuzzing phase: 20, or
/// WARMER_API_FUZZ_EXAMPLES (its coverage phase, the documented edge values,
/// runs whole either way). 0: none, and the suite is reported as skipped
/// (`make test-fast`, which fuzzes nothing: schemathesis is the longest test
/// of the fast targets, about 6 s alone and 16 s among the others).
private let apiFuzzExamples = ProcessInfo.processInfo.environment["WARMER_API_FUZZ_EXAMPLES"] ?? "20"
