import Foundation
import Testing
import TestSupport
@testable import RedisKit

@Suite("RedisClient")
struct RedisClientTests {
    @Test func sendsCommandsAndDecodesReplies() async throws {
        let client = try makeClient()
        let key = TestEnvironment.uniqueName("k")
        #expect(try await client.send(["SET", key, "value"]) == .string("OK"))
        #expect(try await client.send(["GET", key]) == .string("value"))
        #expect(try await client.send(["INCR", key + ":n"]) == .integer(1))
        #expect(try await client.send(["GET", key + ":missing"]) == .null)
        #expect(try await client.send(["MGET", key, key + ":missing"]) == .array([.string("value"), .null]))
    }

    @Test func keepsBinaryAndUnicodeArgumentsIntact() async throws {
        let client = try makeClient()
        let key = TestEnvironment.uniqueName("bin")
        let value = "naïve 🖼 line\nbreak\r\n$3\r\n"
        try await client.send(["SET", key, value])
        #expect(try await client.send(["GET", key]).string == value)
    }

    @Test func concurrentCallersEachGetTheirOwnReply() async throws {
        // Given: many tasks sharing one client (their commands are pipelined together).
        let client = try makeClient()
        let prefix = TestEnvironment.uniqueName("c")
        // When
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<500 {
                group.addTask {
                    try await client.send(["SET", "\(prefix):\(index)", String(index)])
                    return try await client.send(["GET", "\(prefix):\(index)"]).string == String(index)
                }
            }
            // Then
            for try await matches in group { #expect(matches) }
        }
    }

    @Test func errorRepliesAreThrownWithTheirMessage() async throws {
        let client = try makeClient()
        let error = await #expect(throws: RedisError.self) { try await client.send(["NOSUCHCOMMAND"]) }
        guard case .server(let message) = error else {
            Issue.record("expected a server error, got \(String(describing: error))")
            return
        }
        #expect(message.hasPrefix("ERR unknown command"))
        // The connection stays usable.
        #expect(try await client.send(["PING"]) == .string("PONG"))
    }

    @Test func reconnectsAfterTheServerDropsTheConnection() async throws {
        // Given
        let client = try makeClient()
        let name = TestEnvironment.uniqueName("victim")
        try await client.send(["CLIENT", "SETNAME", name])
        // When: another connection kills it.
        let killer = try makeClient()
        let list = try await killer.send(["CLIENT", "LIST"]).string ?? ""
        let id = try #require(list.split(separator: "\n").first { $0.contains("name=\(name)") }?
            .split(separator: " ").first { $0.hasPrefix("id=") }?.dropFirst(3))
        try await killer.send(["CLIENT", "KILL", "ID", String(id)])
        // Then: the next command fails or succeeds, and the one after certainly succeeds on a new connection.
        _ = try? await client.send(["PING"])
        #expect(try await client.send(["PING"]) == .string("PONG"))
    }

    @Test func unreachableServerFailsWithAnUnreachableErrorThatIsTransient() async {
        let client = RedisClient(url: RedisURL(host: "127.0.0.1", port: 1), timeout: .seconds(2))
        let error = await #expect(throws: RedisError.self) { try await client.send(["PING"]) }
        guard case .unreachable = error else {
            Issue.record("expected an unreachable error (nothing sent), got \(String(describing: error))")
            return
        }
        #expect(error?.isTransient == true && error?.didNotRun == true)
    }

    @Test(arguments: [
        ("redis://127.0.0.1:6390/2", RedisURL(host: "127.0.0.1", port: 6390, database: 2)),
        ("redis://:secret@cache.internal", RedisURL(host: "cache.internal", password: "secret")),
        ("redis://worker:p%40ss@10.0.0.5:7000", RedisURL(host: "10.0.0.5", port: 7000, username: "worker", password: "p@ss")),
    ])
    func parsesRedisURLs(_ text: String, _ expected: RedisURL) throws {
        #expect(try RedisURL(parsing: text) == expected)
    }

    @Test(arguments: ["http://127.0.0.1:6379", "redis://", "redis://host/notanumber", "127.0.0.1:6379"])
    func rejectsInvalidRedisURLs(_ text: String) {
        #expect(throws: RedisError.invalidURL(text)) { try RedisURL(parsing: text) }
    }

    @Test func descriptionHidesThePassword() throws {
        #expect(try RedisURL(parsing: "redis://:secret@h:1").description == "redis://:***@h:1")
    }
}
