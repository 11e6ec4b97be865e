import ArgumentParser
import Foundation

/// A command whose settings are resolved from its flags, the environment and
/// the config file (`SettingsResolver`) before it runs.
protocol ConfiguredCommand: ParsableCommand {
    /// The command, as the catalogue names it.
    static var settingCommand: SettingCommand { get }
    /// `--config`, `--log-format`, `--log-level`.
    var general: GeneralOptions { get }
    /// The setting flags given, the general ones aside.
    var settingFlags: GivenFlags { get }
}

extension ConfiguredCommand {
    /// The command's settings, resolved. A setting refused (a value that
    /// does not parse or validate, an unknown key in the config file) is
    /// printed as one line, `error: …`, and the command exits with status
    /// 64, ArgumentParser's status for invalid arguments.
    func resolveSettings(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> ResolvedSettings {
        let resolver = SettingsResolver(
            command: Self.settingCommand, flags: general.givenFlags.merging(settingFlags).texts, environment: environment)
        do {
            return try await resolver.resolve()
        } catch {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            throw ExitCode.validationFailure
        }
    }
}
