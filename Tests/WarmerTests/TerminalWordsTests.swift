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
}
