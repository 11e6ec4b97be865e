import Foundation
import Testing
import TestSupport

/// Sources/CVips/shim.h declares the libvips functions it resolves with
/// dlsym by hand (so that `warmer` does not link libvips and every command
/// starts without loading it); scripts/check-vips-signatures.sh compiles
/// those declarations against libvips' real headers.
@Suite("libvips signatures")
struct VipsSignatureTests {
    private static let script = TestEnvironment.repositoryRoot.appendingPathComponent("scripts/check-vips-signatures.sh").path

    @Test func everyFunctionTheShimResolvesHasTheTypeLibvipsDeclares() throws {
        let result = try Self.run([])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func theCheckFailsForADeclarationThatDrifted() throws {
        // (a deliberately wrong declaration: resize's scale as an int)
        let result = try Self.run(["--self-test"])
        #expect(result.status != 0)
        #expect(result.output.contains("self-test"), "\(result.output)")
    }

    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = try ChildProcess("/bin/bash", [script] + arguments, standardOutput: .pipe,
                                       standardError: .standardOutput)
        let output = process.standardOutput?.readDataToEndOfFile() ?? Data()
        return (process.waitUntilExit().status, String(decoding: output, as: UTF8.self))
    }
}
