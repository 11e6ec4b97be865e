import Foundation
import Testing
import TestSupport
@testable import RedisKit

/// `sendBlocking`: a cancelled caller stops waiting for its blocking command
/// at once, the command runs to its end in Redis, and the connection serves
/// the next command after it. (What lets a worker stop at once while idle.)
@Suite("RedisClient blocking commands")
struct RedisClientBlockingTests {
    /// A client whose read timeout outlasts the blocking commands here.
    private func makePatientClient() throws -> RedisClient {
        RedisClient(url: try RedisURL(parsing: TestEnvironment.redisURL()), timeout: .seconds(120))
    }

    /// Whether the connection named `name` is blocked in a command, as `CLIENT LIST` says.
    private func isBlocked(_ name: String, seenBy client: RedisClient) async throws -> Bool {
        RedisClientList.isBlocked(name, in: try await client.send(["CLIENT", "LIST"]).string ?? "")
    }

    /// A client blocked in a BLMOVE from `source` to `destination` that
    /// would wait a minute, the task waiting for it, and another client.
    private struct BlockedMove {
        let blocking: RedisClient, other: RedisClient
        let name: String, source: String, destination: String
        let wait: Task<RedisReply, any Error>
    }

    private func startBlockedMove(_ prefix: String) async throws -> BlockedMove {
        let blocking = try makePatientClient()
        let other = try makeClient()
        let name = TestEnvironment.uniqueName(prefix)
        let source = name + ":source", destination = name + ":destination"
        try await blocking.send(["CLIENT", "SETNAME", name])
        let wait = Task { try await blocking.sendBlocking(["BLMOVE", source, destination, "LEFT", "RIGHT", "60"]) }
        #expect(await eventually { (try? await isBlocked(name, seenBy: other)) == true })
        return BlockedMove(blocking: blocking, other: other, name: name, source: source, destination: destination, wait: wait)
    }

    @Test func aCancelledCallerGetsNullAtOnceWhileRedisStillRunsTheCommand() async throws {
        // Given a client blocked in a BLMOVE that would wait a minute
        let move = try await startBlockedMove("blocked")
        let (blocking, other, wait) = (move.blocking, move.other, move.wait)
        let (name, source, destination) = (move.name, move.source, move.destination)

        // When its task is cancelled
        wait.cancel()

        // Then the caller gets null, as on a timeout, while Redis still holds the command
        #expect(try await wait.value == .null)
        #expect(try await isBlocked(name, seenBy: other))
        // …whose effect is not lost: an element pushed now is moved
        try await other.send(["RPUSH", source, "document"])
        // …and the connection serves the next command once that one ended
        #expect(try await blocking.send(["LRANGE", destination, "0", "-1"]) == .array([.string("document")]))
        #expect(try await blocking.send(["LLEN", source]) == .integer(0))
    }

    @Test func theCommandOfATaskCancelledBeforeItIsNeverSent() async throws {
        // Given a task cancelled before it sends a blocking command
        let blocking = try makePatientClient()
        let other = try makeClient()
        let name = TestEnvironment.uniqueName("unsent")
        let source = name + ":source", destination = name + ":destination"
        let wait = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await blocking.sendBlocking(["BLMOVE", source, destination, "LEFT", "RIGHT", "60"])
        }

        // Then it gets null…
        #expect(try await wait.value == .null)
        // …and no BLMOVE is waiting on the connection: an element pushed now stays where it is
        try await other.send(["RPUSH", source, "document"])
        #expect(try await blocking.send(["LLEN", source]) == .integer(1))
        #expect(try await blocking.send(["LLEN", destination]) == .integer(0))
    }

    @Test func anUncancelledBlockingCommandGetsItsReply() async throws {
        let move = try await startBlockedMove("woken")

        try await move.other.send(["RPUSH", move.source, "document"])

        #expect(try await move.wait.value == .string("document"))
        #expect(try await move.other.send(["LRANGE", move.destination, "0", "-1"]) == .array([.string("document")]))
    }
}
