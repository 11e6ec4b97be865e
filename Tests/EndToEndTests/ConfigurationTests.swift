import Foundation
import Scheduler
import Testing
import TestSupport
@testable import Warmer

/// One configuration, through real `warmer` processes: a setting comes from
/// a flag, else a `WARMER_*` variable, else the config file; a wrong value
/// from any of them is refused at start with the setting's name and source;
/// `--help` never shows a secret from the environment; docs/configuration.md's
/// table is the catalogue's.
@Suite struct ConfigurationTests {
    @Test func aConfigFileAnEnvironmentVariableAndAFlagResolveInTheDocumentedOrder() async throws {
        // Given three queues, a config file naming the first (and the Redis server),
        // a variable naming the second, a flag naming the third
        let fromFile = try QueueProbe(), fromEnvironment = try QueueProbe(), fromFlag = try QueueProbe()
        let file = try ConfigFileFixture("redis-url: \(fromFile.redisURL)\nqueue: \(fromFile.name)\nconcurrency: 2\n")
        defer { file.remove() }
        let image = try await Origin.makeImages("config-order", count: 1)[0]
        let urls = file.folder.appendingPathComponent("urls.txt")
        try Data((image.url.absoluteString + "\n").utf8).write(to: urls)
        let variable = ["WARMER_QUEUE": fromEnvironment.name]

        // When `warmer enqueue` runs with the file; the file and the variable; all three
        let onlyFile = try await warmer(["enqueue", "--config", file.path, urls.path])
        let fileAndVariable = try await warmer(["enqueue", "--config", file.path, urls.path], environment: variable)
        let all = try await warmer(["enqueue", "--config", file.path, "--queue", fromFlag.name, urls.path], environment: variable)

        // Then each batch went to the queue of the source that wins: flag, then variable, then file
        for (result, expected) in [(onlyFile, fromFile), (fileAndVariable, fromEnvironment), (all, fromFlag)] {
            try #require(result.status == 0, "\(result)")
            let batch = try #require(result.outputLines.last)
            for queue in [fromFile, fromEnvironment, fromFlag] {
                let status = try? await queue.queue.status(ofBatch: batch)
                #expect((status?.total == 1) == (queue.name == expected.name), "batch \(batch) in \(queue.name): \(String(describing: status))")
            }
        }

        // And a worker given the same three sources serves the flag's queue only
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let worker = try CollectedProcess(
            ["worker", "--config", file.path, "--queue", fromFlag.name, "--cache-dir", cache.path], environment: variable)
        let batch = try #require(all.outputLines.last)
        let finished = try await fromFlag.waitUntilFinished(batch: batch)
        #expect(finished.completed == 1, "\(finished)\n\(worker.standardErrorSoFar)")
        worker.send(SIGTERM)
        let stopped = try await worker.result(timeout: .seconds(30))
        #expect(stopped.status == 0, "\(stopped)")
        #expect(try await fromFile.queue.statistics().queued == 1, "the worker took a job of the file's queue")
        #expect(try await fromEnvironment.queue.statistics().queued == 1, "the worker took a job of the variable's queue")
    }

    @Test func aWrongValueFromEachSourceIsRefusedAtStartWithItsNameAndSource() async throws {
        let file = try ConfigFileFixture("concurrency: many\n")
        defer { file.remove() }
        let closedRedis = ["--redis-url", "redis://127.0.0.1:1"] // never reached: the settings are refused first
        let cases: [(arguments: [String], environment: [String: String], message: String)] = [
            (["--concurrency", "many"], [:],
             #"error: invalid setting concurrency from flag --concurrency: "many" must be a whole number from 1 to 100000"#),
            ([], ["WARMER_CONCURRENCY": "many"],
             #"error: invalid setting concurrency from environment variable WARMER_CONCURRENCY: "many" must be a whole number from 1 to 100000"#),
            (["--config", file.path], [:],
             #"error: invalid setting concurrency from config file \#(file.path) (key concurrency): "many" must be a whole number from 1 to 100000"#),
            ([], ["WARMER_CONCURRENCY": "0"],
             #"error: invalid setting concurrency from environment variable WARMER_CONCURRENCY: "0" must be a whole number from 1 to 100000"#),
        ]
        for (arguments, environment, message) in cases {
            let result = try await warmer(["worker"] + closedRedis + arguments, environment: environment)
            #expect(result.status == 64, "\(result)")
            #expect(result.standardError == message + "\n", "\(result)")
        }
    }

    @Test func unknownKeysInTheConfigFileAreRefusedByName() async throws {
        let file = try ConfigFileFixture("queue: images\nconcurency: 8\n")
        defer { file.remove() }
        let result = try await warmer(["status", "--config", file.path])
        #expect(result.status == 64, "\(result)")
        #expect(result.standardError.hasPrefix("error: unknown setting in config file \(file.path): concurency "), "\(result)")
    }

    @Test func helpNeverShowsASecretFromTheEnvironment() async throws {
        // Before, `--redis`'s default was WARMER_REDIS_URL's value, printed by --help.
        let secret = "s3cret-\(UUID().uuidString.prefix(8))"
        let environment = ["WARMER_REDIS_URL": "redis://:\(secret)@127.0.0.1:1", "WARMER_HEADERS": "Authorization: Bearer \(secret)"]
        for command in [["worker"], ["status"], ["enqueue"], ["dead", "list"], ["warm"], ["watch"]] {
            let result = try await warmer(command + ["--help"], environment: environment)
            #expect(result.status == 0, "\(result)")
            #expect(result.standardOutput.contains("WARMER_REDIS_URL") || command == ["warm"], "\(result)")
            #expect(!result.standardOutput.contains(secret) && !result.standardError.contains(secret), "\(result)")
        }
    }

    @Test func aBadSecretIsRefusedWithoutShowingIt() async throws {
        let secret = "s3cret-\(UUID().uuidString.prefix(8))"
        let result = try await warmer(["status"], environment: ["WARMER_REDIS_URL": "redis://:\(secret)@127.0.0.1:99999"])
        #expect(result.status == 64, "\(result)")
        #expect(result.standardError.hasPrefix("error: invalid setting redis-url from environment variable WARMER_REDIS_URL: "), "\(result)")
        #expect(!result.standardError.contains(secret), "\(result)")
    }

    @Test func theExampleConfigFileIsValidForEveryCommand() async throws {
        let example = Self.repository.appendingPathComponent("deploy/warmer.example.yaml").path
        for command in SettingCommand.allCases {
            _ = try await SettingsResolver(command: command, flags: ["config": [example]], environment: [:]).resolve()
        }
    }

    @Test func theDocumentedTableIsTheCatalogues() throws {
        let document = try String(contentsOf: Self.repository.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let begin = try #require(document.range(of: SettingsTable.beginMarker), "docs/configuration.md has no settings table")
        let end = try #require(document.range(of: SettingsTable.endMarker + "\n"), "docs/configuration.md's settings table has no end")
        let documented = String(document[begin.lowerBound..<end.upperBound])
        #expect(documented == SettingsTable.markdown(), """
            docs/configuration.md's settings table differs from the catalogue (Sources/Warmer/Configuration/Settings*.swift).
            Regenerate it: swift build && .build/debug/warmer settings --markdown --update docs/configuration.md
            """)
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
