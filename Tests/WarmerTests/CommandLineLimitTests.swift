import Testing
@testable import Warmer

/// Other flags whose absurd values once passed validation and then trapped
/// converting to an integer.
@Suite struct CommandLineLimitTests {
    @Test(arguments: [["--rate-limit", "inf"], ["--host-rate-limit", "1e300"], ["--rate-limit", "1000001"]])
    func refusesRateLimitsBeyondAMillionPerSecond(_ arguments: [String]) {
        #expect(throws: (any Error).self) { try NetworkOptions.parse(arguments) }
    }

    @Test func takesAMillionPerSecond() throws {
        #expect(try NetworkOptions.parse(["--rate-limit", "1000000"]).rateLimit == 1_000_000)
    }

    @Test(arguments: ["0", "1000001", "9223372036854775807"])
    func refusesMaxPixelsOutsideOneToAMillionMegapixels(_ value: String) {
        #expect(throws: (any Error).self) { try PipelineOptions.parse(["--max-pixels", value]) }
    }

    @Test(arguments: ["1e300", "inf", "-1"])
    func enqueueRefusesAgingOutsideZeroToAYear(_ value: String) {
        #expect(throws: (any Error).self) { try EnqueueCommand.parse(["--aging", value, "urls.txt"]) }
    }
}
