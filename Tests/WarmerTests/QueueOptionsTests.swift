import Testing
@testable import Warmer

/// The worker's queue flags: absurd values are refused with a message.
@Suite struct QueueOptionsTests {
    @Test(arguments: [["--retry-backoff", "1e300"], ["--aging", "inf"], ["--retry-backoff", "31536001"], ["--aging", "-1"]])
    func refusesWaitsOutsideZeroToAYear(_ arguments: [String]) {
        // `--retry-backoff 1e300` passed validation, then Int(1e300 * 1000) killed the worker.
        #expect(throws: (any Error).self) { try QueueOptions.parse(arguments) }
    }

    @Test func acceptsAYear() throws {
        let options = try QueueOptions.parse(["--retry-backoff", "31536000", "--aging", "0.5"])
        #expect(options.configuration.retry.baseDelay == .seconds(31_536_000))
        #expect(options.configuration.agingInterval == .milliseconds(500))
    }
}
