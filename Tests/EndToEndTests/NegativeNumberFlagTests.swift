import Foundation
import Testing
import TestSupport
@testable import Warmer

/// A negative number given to a numeric flag, as `--flag -5` or
/// `--flag=-5`, is refused by that flag with its accepted range, not taken
/// for an unknown option ("Missing value for '--grace-period'").
@Suite struct NegativeNumberFlagTests {
    @Test func aNegativeNumberAfterALongOptionIsJoinedToIt() {
        #expect(NegativeNumberArguments.joined(["worker", "--grace-period", "-5", "--rate-limit", "-0.5", "--blur", "-.5"])
            == ["worker", "--grace-period=-5", "--rate-limit=-0.5", "--blur=-.5"])
        // Anything else stays as it is: values, flags with `=`, short options, words after `--`
        let untouched = [
            ["worker", "--grace-period", "5"], ["worker", "--grace-period=-5", "-6"], ["cache", "get", "-o", "-5"],
            ["enqueue", "--batch", "-abc"], ["enqueue", "--", "--batch", "-5"], ["warm", "--timeout", "-"],
            ["warm", "--quality", "-inf"],
        ]
        for arguments in untouched {
            #expect(NegativeNumberArguments.joined(arguments) == arguments)
        }
    }

    /// Every numeric setting of the catalogue, with a command that reads it.
    static let numericSettings: [(setting: SettingInfo, command: SettingCommand)] = {
        let numeric: [SettingInfo] = Settings.all.map(\.info).filter { $0.kind == .wholeNumber || $0.kind == .number }
        return numeric.compactMap { info in
            let first: SettingCommand? = info.commands.sorted { $0.rawValue < $1.rawValue }.first
            return first.map { (setting: info, command: $0) }
        }
    }()

    @Test func everyNumericSettingRefusesANegativeNumberWithItsRangeWhicheverWayItIsWritten() async throws {
        #expect(Self.numericSettings.count >= 20, "the catalogue's numeric settings: \(Self.numericSettings.map(\.setting.name))")
        for (info, command) in Self.numericSettings {
            let words = command.rawValue.split(separator: " ").map(String.init)
            let required = SettingFlagsTests.requiredArguments[command] ?? []
            for given in [[info.flagText, "-5"], [info.flagText + "=-5"]] {
                // When the flag is given -5
                let result = try await warmer(words + given + required)

                // Then the command refuses it at start, naming the flag and what it accepts
                #expect(result.status == 64, "\(result)")
                let refusal = "error: invalid setting \(info.name) from flag \(info.flagText): \"-5\" must be a "
                #expect(result.standardError.hasPrefix(refusal), "\(result)")
                #expect(result.standardError.contains(" from ") || result.standardError.contains(" or more"), "\(result)")
            }
        }
    }

    @Test(arguments: [
        (["dead", "list", "--limit"], [], "--limit must be a whole number from 1 to 100000, not -5"),
        (["enqueue", "--timeout"], ["urls.txt"], "--timeout must be 1-86400 seconds"),
        (["warm", "--thumbnail"], ["urls.txt"], "thumbnail needs a whole number of pixels in 1-10000: '-5'"),
        (["warm", "--blur"], ["urls.txt"], "blur needs a radius in (0, 50]: '-5'"),
        (["warm", "--rounded"], ["urls.txt"], "rounded needs a whole number of pixels in 1-10000: '-5'"),
        (["warm", "--quality"], ["urls.txt"], "quality must be 1-100: '-5'"),
    ] as [([String], [String], String)])
    func everyNumericPerInvocationFlagRefusesANegativeNumberWithItsRange(
        command: [String], required: [String], message: String
    ) async throws {
        let flag = command.last ?? ""
        for given in [command + ["-5"], command.dropLast() + [flag + "=-5"]] {
            let result = try await warmer(given + required)
            #expect(result.status == 64 && result.standardError.contains(message), "\(result)")
            #expect(!result.standardError.contains("Missing value"), "\(result)")
        }
    }
}
