import Testing
@testable import Warmer

/// The worker's queue settings: absurd values are refused with a message.
@Suite struct QueueOptionsTests {
    @Test(arguments: [["retry-backoff": ["1e300"]], ["aging": ["inf"]], ["retry-backoff": ["31536001"]], ["aging": ["-1"]]])
    func refusesWaitsOutsideZeroToAYear(_ flags: [String: [String]]) async {
        // `--retry-backoff 1e300` passed validation, then Int(1e300 * 1000) killed the worker.
        await #expect(throws: SettingError.self) {
            try await SettingsResolver(command: .worker, flags: flags, environment: [:]).resolve()
        }
    }

    @Test func acceptsAYear() async throws {
        let settings = try await SettingsResolver(
            command: .worker, flags: ["retry-backoff": ["31536000"], "aging": ["0.5"]], environment: [:]).resolve()
        #expect(settings.queueConfiguration.retry.baseDelay == .seconds(31_536_000))
        #expect(settings.queueConfiguration.agingInterval == .milliseconds(500))
    }
}
