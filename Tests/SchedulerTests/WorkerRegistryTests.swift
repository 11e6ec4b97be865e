import Foundation
import Testing
import TestSupport
@testable import Scheduler

/// The worker registry: heartbeat records that list live workers, lapse one
/// lease after the last beat and go at once on removal.
@Suite("Worker registry")
struct WorkerRegistryTests {
    private func identity(_ name: String, concurrency: Int = 4) -> WorkerIdentity {
        WorkerIdentity(id: "\(name):\(name.count):ab12", host: name, pid: name.count, version: "9.9.9", concurrency: concurrency)
    }

    @Test func beatingWorkersAreListedWithTheirFields() async throws {
        let queue = try makeQueue()
        let registry = WorkerRegistry(queue: queue)
        let (first, second) = (identity("alpha", concurrency: 8), identity("beta"))
        // When two workers beat
        let startedAt = try await registry.beat(first, load: WorkerLoad(busySlots: 2, runningJobIDs: ["3", "14"]), startedAt: nil)
        try await registry.beat(second, load: .idle, startedAt: nil)

        // Then both are listed, sorted by id, with what they sent
        let workers = try await registry.workers()
        #expect(workers.map(\.id) == [first.id, second.id])
        let alpha = try #require(workers.first)
        #expect(alpha.host == "alpha" && alpha.pid == 5 && alpha.version == "9.9.9" && alpha.concurrency == 8)
        #expect(alpha.busySlots == 2 && alpha.runningJobIDs == ["3", "14"])
        #expect(alpha.startedAt == startedAt && alpha.heartbeatAt >= startedAt)
        #expect(alpha.leaseMilliseconds == 30_000 && alpha.expiresAt == alpha.heartbeatAt + 30_000)
        #expect(alpha.heartbeatAge >= 0 && alpha.heartbeatAge < 30_000)
        #expect(workers[1].busySlots == 0 && workers[1].runningJobIDs.isEmpty)
    }

    @Test func aLaterBeatKeepsTheStartTimeAndReplacesTheLoad() async throws {
        let queue = try makeQueue()
        let registry = WorkerRegistry(queue: queue)
        let worker = identity("gamma")
        let startedAt = try await registry.beat(worker, load: WorkerLoad(busySlots: 1, runningJobIDs: ["7"]), startedAt: nil)
        // When it beats again with another load
        let again = try await registry.beat(worker, load: WorkerLoad(busySlots: 2, runningJobIDs: ["8", "9"]), startedAt: startedAt)
        // Then
        #expect(again == startedAt)
        let record = try #require(try await registry.workers().first)
        #expect(record.startedAt == startedAt && record.busySlots == 2 && record.runningJobIDs == ["8", "9"])
    }

    @Test func theRecordIsPlainFieldsAnyRedisClientCanRead() async throws {
        let queue = try makeQueue()
        let worker = identity("delta")
        try await WorkerRegistry(queue: queue).beat(worker, load: WorkerLoad(busySlots: 2, runningJobIDs: ["5", "12"]), startedAt: nil)
        // Then the hash holds strings under the documented key, and the id is in the workers set
        let fields = try await queue.client.send(["HGETALL", "warmer:{\(queue.keys.name)}:worker:\(worker.id)"]).fieldDictionary
        let documented: Set<String> = ["id", "host", "pid", "version", "concurrency", "busy", "jobs", "startedAt",
                                       "heartbeatAt", "expiresAt", "lease"]
        #expect(Set(fields.keys) == documented)
        #expect(fields["jobs"] == "5,12" && fields["busy"] == "2")
        #expect(fields["pid"] == "5" && fields["lease"] == "30000")
        let score = try await queue.client.send(["ZSCORE", "warmer:{\(queue.keys.name)}:workers", worker.id]).string
        let scored: Int? = score.flatMap { Double($0) }.map { Int($0) }
        let expiresAt: Int? = fields["expiresAt"].flatMap { Int($0) }
        #expect(scored == expiresAt)
        // …and it expires with the lease
        let ttl = try #require(try await queue.client.send(["PTTL", queue.keys.worker(worker.id)]).integer)
        #expect(ttl > 0 && ttl <= 30_000)
    }

    @Test func aWorkerThatStopsBeatingLapsesAfterItsLeaseWhateverTheReadersLease() async throws {
        // Given a worker beating once with a 1 s lease
        let writer = try makeQueue { $0.leaseDuration = .seconds(1) }
        let worker = identity("epsilon")
        try await WorkerRegistry(queue: writer).beat(worker, load: .idle, startedAt: nil)
        // …read by a client with the default 30 s lease
        let reader = WorkerRegistry(queue: try JobQueue(client: makeClient(), name: writer.keys.name))
        #expect(try await reader.workers().map(\.id) == [worker.id])
        #expect(try await writer.statistics().workers == 1)

        // When it beats no more, then it drops out of the listing and the count…
        let lapsed = await eventually(timeout: .seconds(10)) { (try? await reader.workers().isEmpty) ?? false }
        #expect(lapsed)
        #expect(try await reader.liveCount() == 0)
        // …its hash has expired and the listing pruned its id
        #expect(try await writer.client.send(["EXISTS", writer.keys.worker(worker.id)]).integer == 0)
        #expect(try await writer.client.send(["ZCARD", writer.keys.workers]).integer == 0)
    }

    @Test func removingARecordDropsItAtOnce() async throws {
        let queue = try makeQueue()
        let registry = WorkerRegistry(queue: queue)
        let (leaving, staying) = (identity("zeta"), identity("eta"))
        try await registry.beat(leaving, load: .idle, startedAt: nil)
        try await registry.beat(staying, load: .idle, startedAt: nil)
        #expect(try await queue.statistics().workers == 2)
        // When one leaves cleanly
        try await registry.remove(leaving.id)
        // Then
        #expect(try await registry.workers().map(\.id) == [staying.id])
        #expect(try await queue.statistics().workers == 1)
        #expect(try await queue.client.send(["EXISTS", queue.keys.worker(leaving.id)]).integer == 0)
        #expect(try await queue.client.send(["ZSCORE", queue.keys.workers, leaving.id]) == .null)
    }

    @Test func anotherWorkersBeatPrunesLapsedIds() async throws {
        let shortLease = try makeQueue { $0.leaseDuration = .milliseconds(300) }
        let gone = identity("theta")
        try await WorkerRegistry(queue: shortLease).beat(gone, load: .idle, startedAt: nil)
        let longLease = WorkerRegistry(queue: try JobQueue(client: makeClient(), name: shortLease.keys.name))
        // When the first has lapsed and another worker beats
        let expired = await eventually(timeout: .seconds(10)) {
            (try? await shortLease.client.send(["EXISTS", shortLease.keys.worker(gone.id)]).integer) == 0
        }
        try #require(expired)
        try await longLease.beat(identity("iota"), load: .idle, startedAt: nil)
        // Then the set holds the live worker only
        #expect(try await shortLease.client.send(["ZRANGE", shortLease.keys.workers, "0", "-1"]).array == [.string(identity("iota").id)])
    }
}
