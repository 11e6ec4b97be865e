import Testing
@testable import Warmer

/// Other settings whose absurd values once passed validation and then
/// trapped converting to an integer.
@Suite struct CommandLineLimitTests {
    @Test(arguments: [["rate-limit": ["inf"]], ["host-rate-limit": ["1e300"]], ["rate-limit": ["1000001"]]])
    func refusesRateLimitsBeyondAMillionPerSecond(_ flags: [String: [String]]) async {
        await #expect(throws: SettingError.self) {
            try await SettingsResolver(command: .worker, flags: flags, environment: [:]).resolve()
        }
    }

    @Test func takesAMillionPerSecond() async throws {
        let settings = try await SettingsResolver(command: .warm, flags: ["rate-limit": ["1000000"]], environment: [:]).resolve()
        #expect(settings[Settings.rateLimit] == 1_000_000)
    }

    @Test(arguments: ["0", "1000001", "9223372036854775807"])
    func refusesMaxPixelsOutsideOneToAMillionMegapixels(_ value: String) async {
        await #expect(throws: SettingError.self) {
            try await SettingsResolver(command: .warm, flags: ["max-pixels": [value]], environment: [:]).resolve()
        }
    }

    @Test(arguments: ["1e300", "inf", "-1"])
    func enqueueRefusesAgingOutsideZeroToAYear(_ value: String) async throws {
        let command = try EnqueueCommand.parse(["--aging=\(value)", "urls.txt"])
        await #expect(throws: (any Error).self) { try await command.resolveSettings(environment: [:]) }
    }

    @Test(arguments: ["images.example=0", "=5", "images.example=fast", "images.example=1000001", "images.example"])
    func refusesAHostRateLimitOverrideThatIsNotHostEqualsARate(_ value: String) async {
        await #expect(throws: SettingError.self) {
            try await SettingsResolver(command: .worker, flags: ["host-rate-limit-overrides": [value]], environment: [:]).resolve()
        }
    }

    @Test func hostRateLimitOverridesApplyToTheFleetAndToTheProcessByLowercasedHost() async throws {
        let settings = try await SettingsResolver(
            command: .worker, flags: ["host-rate-limit": ["20"], "host-rate-limit-overrides": ["Images.Example=100"]], environment: [:]
        ).resolve()
        #expect(settings.fleetRateLimits.limit(forHost: "images.example") == 100)
        #expect(settings.fleetRateLimits.limit(forHost: "other.example") == 20)
    }
}
