import Foundation
import Testing
import TestSupport
@testable import Warmer

/// The resolver in process: precedence, conversions, refusals, and that
/// every setting is reachable from its flag, its variable and the file.
@Suite struct SettingsResolverTests {
    @Test func aFlagBeatsTheEnvironmentWhichBeatsTheConfigFileWhichBeatsTheDefault() async throws {
        let file = try ConfigFileFixture("queue: from-file\nconcurrency: 3\nmax-stalls: 5\n")
        defer { file.remove() }
        let settings = try await SettingsResolver(
            command: .worker,
            flags: ["config": [file.path], "queue": ["from-flag"]],
            environment: ["WARMER_QUEUE": "from-env", "WARMER_CONCURRENCY": "4"]
        ).resolve()

        #expect(settings[Settings.queue] == "from-flag")
        #expect(settings.source(of: Settings.queue) == .flag("--queue"))
        #expect(settings[Settings.concurrency] == 4)
        #expect(settings.source(of: Settings.concurrency) == .environment("WARMER_CONCURRENCY"))
        #expect(settings[Settings.maxStalls] == 5)
        #expect(settings.source(of: Settings.maxStalls) == .configFile(path: file.path, key: "max-stalls"))
        #expect(settings[Settings.gracePeriod] == 30)
        #expect(settings.source(of: Settings.gracePeriod) == .builtInDefault)
    }

    @Test func theConfigFileCanComeFromTheEnvironmentAndBeJSON() async throws {
        let file = try ConfigFileFixture(#"{"queue": "json-queue", "retry-backoff": 2.5, "concurrency": "6", "allow-hosts": ["a.example", "b.example"]}"#,
                                         extension: "json")
        defer { file.remove() }
        let settings = try await SettingsResolver(command: .worker, flags: [:], environment: ["WARMER_CONFIG": file.path]).resolve()

        #expect(settings[Settings.queue] == "json-queue")
        #expect(settings[Settings.retryBackoff] == 2.5)
        #expect(settings[Settings.concurrency] == 6) // a number written as a string is still a number
        #expect(settings[Settings.allowHosts] == ["a.example", "b.example"])
        #expect(settings[Settings.config] == file.path)
    }

    @Test func environmentListsTakeOneItemPerLineAndHostsAlsoCommas() async throws {
        let settings = try await SettingsResolver(command: .warm, flags: [:], environment: [
            "WARMER_ALLOW_HOSTS": "a.example, b.example",
            "WARMER_HEADERS": "Accept: image/avif,image/webp\nX-Team: images",
            "WARMER_ALLOW_PRIVATE_NETWORKS": "1",
        ]).resolve()

        #expect(settings[Settings.allowHosts] == ["a.example", "b.example"])
        #expect(settings[Settings.headers] == ["Accept: image/avif,image/webp", "X-Team: images"])
        #expect(settings[Settings.allowPrivateNetworks])
    }

    @Test(arguments: [
        (["concurrency": ["abc"]], [:], "invalid setting concurrency from flag --concurrency: \"abc\" must be a whole number from 1 to 100000"),
        ([:], ["WARMER_CONCURRENCY": "abc"], "invalid setting concurrency from environment variable WARMER_CONCURRENCY: \"abc\" must be a whole number from 1 to 100000"),
        ([:], ["WARMER_CONCURRENCY": "0"], "invalid setting concurrency from environment variable WARMER_CONCURRENCY: \"0\" must be a whole number from 1 to 100000"),
        ([:], ["WARMER_RATE_LIMIT": "inf"], "invalid setting rate-limit from environment variable WARMER_RATE_LIMIT: \"inf\" must be a number above 0, up to 1000000"),
        (["allow-networks": ["10.0.0.0/8", "10.0.0.0/33"]], [:], "invalid setting allow-networks from flag --allow-network: \"10.0.0.0/33\" is not a network in CIDR notation"),
        ([:], ["WARMER_CACHE_MODE": "lazy"], "invalid setting cache-mode from environment variable WARMER_CACHE_MODE: \"lazy\" is not one of aggressive, http"),
        ([:], ["WARMER_ALLOW_PRIVATE_NETWORKS": "maybe"], "invalid setting allow-private-networks from environment variable WARMER_ALLOW_PRIVATE_NETWORKS: \"maybe\" is not true or false (yes/no, 1/0)"),
    ] as [([String: [String]], [String: String], String)])
    func aWrongValueIsRefusedWithItsNameAndSource(flags: [String: [String]], environment: [String: String], message: String) async {
        await #expect(throws: SettingError(message)) {
            try await SettingsResolver(command: .worker, flags: flags, environment: environment).resolve()
        }
    }

    @Test func aWrongValueInTheConfigFileNamesTheFileAndTheKey() async throws {
        let file = try ConfigFileFixture("lease-duration: 1\n")
        defer { file.remove() }
        await #expect(throws: SettingError("invalid setting lease-duration from config file \(file.path) (key lease-duration): \"1\" must be a whole number from 3 to 86400")) {
            try await SettingsResolver(command: .worker, flags: ["config": [file.path]], environment: [:]).resolve()
        }
    }

    @Test func unknownKeysInTheConfigFileAreRefusedByName() async throws {
        let file = try ConfigFileFixture("queue: q\nconcurency: 8\nredis:\n  url: redis://127.0.0.1\n")
        defer { file.remove() }
        let error = await #expect(throws: SettingError.self) {
            try await SettingsResolver(command: .status, flags: ["config": [file.path]], environment: [:]).resolve()
        }
        #expect(error?.description.hasPrefix("unknown settings in config file \(file.path): concurency, redis.url") == true, "\(String(describing: error))")
    }

    @Test func aSecretIsNeverQuotedInARefusal() async {
        let error = await #expect(throws: SettingError.self) {
            try await SettingsResolver(command: .status, flags: [:], environment: ["WARMER_REDIS_URL": "redis://:s3cret@[::1"]).resolve()
        }
        #expect(error?.description.contains("invalid setting redis-url from environment variable WARMER_REDIS_URL") == true)
        #expect(error?.description.contains("s3cret") == false, "\(String(describing: error))")
    }

    @Test func aCommandIgnoresTheSettingsItDoesNotRead() async throws {
        // `status` reads no concurrency: a wrong one in the environment is not its business.
        let settings = try await SettingsResolver(command: .status, flags: [:], environment: ["WARMER_CONCURRENCY": "abc"]).resolve()
        #expect(settings.entry(named: "concurrency") == nil)
    }

    /// Every setting each command reads comes from its environment variable,
    /// and from the config file under its key.
    @Test(arguments: SettingCommand.allCases)
    func everySettingIsReadFromItsVariableAndItsKey(command: SettingCommand) async throws {
        let settings = Settings.used(by: command).filter { !$0.info.isFlagAndEnvironmentOnly }
        let environment = Dictionary(uniqueKeysWithValues: settings.map { ($0.info.environmentName, $0.info.example) })
        let fromEnvironment = try await SettingsResolver(command: command, flags: [:], environment: environment).resolve()
        let yaml = settings.map { "\($0.info.configKey): \(Self.yamlValue($0.info))" }.joined(separator: "\n")
        let file = try ConfigFileFixture(yaml + "\n")
        defer { file.remove() }
        let fromFile = try await SettingsResolver(command: command, flags: ["config": [file.path]], environment: [:]).resolve()
        for setting in settings {
            let info = setting.info
            #expect(fromEnvironment.entry(named: info.name)?.source == .environment(info.environmentName), "\(command) \(info.name)")
            #expect(fromFile.entry(named: info.name)?.source == .configFile(path: file.path, key: info.configKey), "\(command) \(info.name)")
        }
    }

    static func yamlValue(_ info: SettingInfo) -> String {
        let quoted = "\"" + info.example.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        return info.kind == .list ? "[\(quoted)]" : quoted
    }
}

/// A `WARMER_*` variable one or two letters from a setting's is reported
/// with the setting it likely meant; others are left alone.
@Suite struct MisspelledVariablesTests {
    @Test func aNearMissNamesTheSettingItLikelyMeant() {
        let found = MisspelledVariables.find(in: [
            "WARMER_CONCURENCY": "16", "WARMER_REDIS_UR": "redis://127.0.0.1:1", "WARMER_QUEUE": "q",
            "WARMER_TEST_REDIS_URL": "redis://127.0.0.1:2", "HOME": "/root",
        ])
        #expect(found.map(\.given) == ["WARMER_CONCURENCY", "WARMER_REDIS_UR"])
        #expect(found.map(\.meant) == ["WARMER_CONCURRENCY", "WARMER_REDIS_URL"])
    }
}
