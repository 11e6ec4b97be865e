import Foundation
@testable import RedisKit
import Testing
@testable import Scheduler

/// heartbeat.lua, list-workers.lua and count-workers.lua called directly,
/// with their declared keys and the queue context like every queue script.
@Suite("Worker registry scripts")
struct WorkerScriptTests {
    /// heartbeat.lua's arguments for worker `id` with a `lease` in ms.
    private func beat(_ id: String, lease: String = "10000", startedAt: String = "") -> [String] {
        [id, lease, startedAt, "host-a", "42", "1.0", "8", "2", "7,9"]
    }

    @Test func aHeartbeatWritesTheRecordForOneLeaseAndPrunesLapsedIds() async throws {
        let h = try QueueScriptHarness()
        try await h.send(["ZADD", h.keys.workers, "1", "gone"])
        let startedAt = try await h.call(WorkerScripts.heartbeat, beat("w")).string
        let record = try await h.hash(h.keys.worker("w"))
        #expect(record["startedAt"] == startedAt && record["host"] == "host-a" && record["jobs"] == "7,9", "\(record)")
        #expect(record["lease"] == "10000" && record["busy"] == "2")
        let ttl = try await h.send(["PTTL", h.keys.worker("w")]).integer ?? 0
        #expect(ttl > 0 && ttl <= 10_000)
        #expect(Set(try await h.scores(h.keys.workers).keys) == ["w"])
        // A later beat keeps the start it is given.
        let again = try await h.call(WorkerScripts.heartbeat, beat("w", startedAt: "123")).string
        #expect(again == "123")
    }

    @Test func aHeartbeatRefusesALeaseThatIsNoPositiveInteger() async throws {
        let h = try QueueScriptHarness()
        for lease in ["0", "-5", "1.5", "soon"] {
            await #expect(throws: RedisError.self) {
                try await h.call(WorkerScripts.heartbeat, beat("w", lease: lease))
            }
        }
        #expect(try await h.send(["EXISTS", h.keys.workers, h.keys.worker("w")]).integer == 0)
    }

    @Test func listingAndCountingSeeOnlyLiveWorkers() async throws {
        let h = try QueueScriptHarness()
        _ = try await h.call(WorkerScripts.heartbeat, beat("w"))
        try await h.send(["ZADD", h.keys.workers, "1", "lapsed"])
        // Live by its score, but its hash is gone: counted, not listed.
        try await h.send(["ZADD", h.keys.workers, "9000000000000", "hashless"])
        #expect(try await h.call(WorkerScripts.count, []) == .integer(2))
        let reply = try await h.call(WorkerScripts.list, []).array
        #expect(reply.count == 2 && reply[0].integer ?? 0 > 0)
        #expect(reply[1].array.map { $0.fieldDictionary["id"] } == ["w"])
        #expect(Set(try await h.scores(h.keys.workers).keys) == ["w", "hashless"])
    }
}
