import ArgumentParser
import Foundation
import Testing
import TestSupport
@testable import Warmer

/// Every command's flags and the catalogue agree: each setting a command
/// reads has its flag there, forwarded to the resolver, and every flag a
/// command has is a setting or one of its per-invocation flags.
@Suite struct SettingFlagsTests {
    /// What each command needs besides settings to parse.
    static let requiredArguments: [SettingCommand: [String]] = [
        .enqueue: ["urls.txt"], .cancel: ["batch"], .priority: ["high", "--batch", "b"], .group: ["tenant"],
        .deadRetry: ["--all"], .deadPurge: ["--all"], .warm: ["urls.txt"],
        .cachePath: ["https://example.com/a.jpg"], .cacheGet: ["https://example.com/a.jpg"],
    ]

    @Test(arguments: SettingCommand.allCases)
    func everySettingsFlagReachesTheResolver(command: SettingCommand) async throws {
        for setting in Settings.used(by: command) where !setting.info.isFlagAndEnvironmentOnly && setting.info.hasFlag {
            let info = setting.info
            let flag = info.kind == .switch ? [info.flagText] : [info.flagText, info.example]
            let arguments = command.rawValue.split(separator: " ").map(String.init) + flag + (Self.requiredArguments[command] ?? [])
            let parsed = try #require(try WarmerCommand.parseAsRoot(arguments) as? any ConfiguredCommand, "\(arguments)")
            let settings = try await parsed.resolveSettings(environment: [:])
            #expect(settings.entry(named: info.name)?.source == .flag(info.flagText), "\(arguments)")
        }
    }

    @Test func theRedisFlagIsStillAcceptedForRedisURL() async throws {
        let parsed = try #require(try WarmerCommand.parseAsRoot(["status", "--redis", "redis://127.0.0.1:7000"]) as? any ConfiguredCommand)
        let settings = try await parsed.resolveSettings(environment: ["WARMER_REDIS_URL": "redis://127.0.0.1:7001"])
        #expect(settings[Settings.redisURL] == "redis://127.0.0.1:7000")
    }

    @Test func everyFlagOfEveryCommandIsASettingOrAPerInvocationFlag() async throws {
        // Given every command's flags, as `warmer --experimental-dump-help` lists them
        let result = try await warmer(["--experimental-dump-help"])
        try #require(result.status == 0, "\(result)")
        let root = try JSONDecoder().decode(DumpedHelp.self, from: Data(result.standardOutput.utf8)).command
        var commands: [String: Set<String>] = [:]
        func collect(_ command: DumpedHelp.Command, path: [String]) {
            let name = path.joined(separator: " ")
            if SettingCommand(rawValue: name) != nil {
                let names: [DumpedHelp.Name] = (command.arguments ?? []).flatMap { $0.names ?? [] }
                commands[name] = Set(names.filter { $0.kind == "long" }.map(\.name))
            }
            for subcommand in command.subcommands ?? [] { collect(subcommand, path: path + [subcommand.commandName]) }
        }
        collect(root, path: [])

        for command in SettingCommand.allCases {
            let flags = try #require(commands[command.rawValue], "\(command.rawValue) is not a command of warmer")
            // Then each setting the catalogue gives the command is one of its flags…
            let settings = Settings.used(by: command).map(\.info)
            for info in settings where info.hasFlag {
                #expect(flags.contains(info.flag), "\(command.rawValue) has no --\(info.flag)")
            }
            // …and each of its flags is a setting, or a per-invocation flag.
            let known = Set(settings.flatMap { [$0.flag, "no-" + $0.flag] + $0.flagAliases })
                .union(Settings.perInvocationFlags[command] ?? []).union(["help", "version"])
            #expect(flags.subtracting(known).isEmpty, "\(command.rawValue) flags missing from the catalogue: \(flags.subtracting(known).sorted())")
        }
    }

    /// The part of ArgumentParser's `--experimental-dump-help` JSON these tests read.
    struct DumpedHelp: Decodable {
        struct Name: Decodable { let kind: String; let name: String }
        struct Argument: Decodable { let names: [Name]? }
        struct Command: Decodable {
            let commandName: String
            let arguments: [Argument]?
            let subcommands: [Command]?
        }
        let command: Command
    }
}
