import Foundation
import Scheduler
import Testing
import TestSupport

/// What the CLI says when it refuses something: the words a person at a
/// terminal needs, not a neighbouring case's message or a type's name.
@Suite(.serialized)
struct TerminalWordsTests {
    @Test func priorityWithNeitherABatchNorJobsSaysWhatIsMissing() async throws {
        let queue = try QueueProbe()
        let result = try await warmer(["priority", "high"] + queue.redisArguments)
        #expect(result.status != 0, "\(result)")
        #expect(result.standardError.contains("whose priority to change"), "\(result)")
        #expect(!result.standardError.contains("not both"), "\(result)")
    }

    @Test func cancelWithNeitherABatchNorJobsSaysWhatIsMissing() async throws {
        let queue = try QueueProbe()
        let result = try await warmer(["cancel"] + queue.redisArguments)
        #expect(result.status != 0, "\(result)")
        #expect(result.standardError.contains("nothing to cancel"), "\(result)")
        #expect(!result.standardError.contains("not both"), "\(result)")
    }

    @Test func retryingAnUnknownDeadLetterNamesItAndFails() async throws {
        let queue = try QueueProbe()
        for command in ["retry", "purge"] {
            let result = try await warmer(["dead", command] + queue.redisArguments + ["99999", "no-such-id"])
            #expect(result.exited && result.status == 1, "\(result)")
            #expect(result.standardError.contains("Not dead-lettered in this queue (see `warmer dead list`): 99999, no-such-id"),
                    "\(result)")
        }
    }

    @Test func aRefusedAddressNamesTheFlagsThatAllowIt() async throws {
        let folder = try TestEnvironment.temporaryDirectory("refused")
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("urls.txt")
        try Data("http://[::1]:1/x.jpg\n".utf8).write(to: list)
        let result = try await warmer(["warm", "--cache-dir", folder.appendingPathComponent("cache").path, list.path],
                                      environment: ["WARMER_ALLOW_HOSTS": "", "WARMER_ALLOW_NETWORKS": ""])
        let said = result.standardError + result.standardOutput
        #expect(said.contains("address_refused") || said.contains("not a public address"), "\(result)")
        #expect(said.contains("--allow-host") && said.contains("--allow-private-networks"), "\(result)")
        #expect(!said.contains("AddressPolicy"), "\(result)")
    }

    @Test func inspectingAMistypedCacheFolderCreatesNothing() async throws {
        let parent = try TestEnvironment.temporaryDirectory("typo")
        defer { try? FileManager.default.removeItem(at: parent) }
        let typo = parent.appendingPathComponent("typo")
        for command in [["cache", "path"], ["cache", "get"]] {
            let result = try await warmer(command + ["--cache-dir", typo.path, "https://example.com/a.jpg"])
            #expect(result.status != 0, "\(result)")
            #expect(result.standardError.contains("No cache folder at \(typo.path)"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: typo.path), "\(command) created \(typo.path)")
        }
    }

    @Test func aCacheFolderThatIsAFileIsSaidInWords() async throws {
        let parent = try TestEnvironment.temporaryDirectory("file-cache")
        defer { try? FileManager.default.removeItem(at: parent) }
        let file = parent.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: file)
        let queue = try QueueProbe()
        let list = parent.appendingPathComponent("urls.txt")
        try Data("https://example.com/a.jpg\n".utf8).write(to: list)
        for command in [["cache", "path", "https://example.com/a.jpg"], ["warm", list.path], ["worker"] + queue.redisArguments] {
            let arguments = [command[0]] + (command[0] == "cache" ? [command[1]] : []) + ["--cache-dir", file.path]
                + command.dropFirst(command[0] == "cache" ? 2 : 1)
            let result = try await warmer(arguments, timeout: .seconds(30))
            #expect(result.status != 0, "\(result)")
            #expect(result.standardError.contains("\(file.path) is a file, not a folder"), "\(result)")
            #expect(!result.standardError.contains("NSCocoaErrorDomain"), "\(result)")
        }
    }

    @Test func aRedisThatNeverAnswersIsReportedAsATimeout() async throws {
        // Given a port that accepts connections (the kernel's backlog) and never answers
        let silent = try LoopbackListener()
        defer { silent.close() }

        // When a command asks it something, giving up at once
        let result = try await warmer(["status", "--redis-url", "redis://127.0.0.1:\(silent.port)", "--redis-wait", "0"],
                                      timeout: .seconds(60))

        // Then it fails saying it timed out, not with errno's words
        #expect(result.status != 0, "\(result)")
        #expect(result.standardError.contains("timed out after"), "\(result)")
        #expect(!result.standardError.contains("Resource temporarily unavailable"), "\(result)")
    }
}
