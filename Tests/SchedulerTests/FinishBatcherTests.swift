import Synchronization
import Testing
import RedisKit
import TestSupport
@testable import Scheduler

/// A worker's slots end their jobs through one `FinishBatcher`, which
/// gathers the ends that arrive while a call is on the wire into the next.
@Suite("Finish batcher")
struct FinishBatcherTests {
    private let worker = "test-worker"

    @Test func concurrentEndsShareCallsAndEachSlotGetsItsOwnNextJob() async throws {
        // Given 40 queued jobs, 20 of them held by the worker
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(40))
        let held = try await queue.claim(upTo: 20, worker: worker)
        let calls = Mutex<[Int]>([])
        let batcher = FinishBatcher(queue: queue, worker: worker, callsInFlight: 1) { ends in
            calls.withLock { $0.append(ends) }
        }
        // When the 20 slots end their jobs at once, each asking for a next one
        let next = try await withThrowingTaskGroup(of: Job?.self) { group in
            for job in held {
                group.addTask { try await batcher.finish(job, outcome: .completed(source: "disk", bytes: 1), claimingNext: true).next }
            }
            return try await group.reduce(into: [Job]()) { if let job = $1 { $0.append(job) } }
        }
        // Then every end counted, each slot got a different one of the other 20 jobs…
        #expect(held.count == 20)
        let status = try await queue.status(ofBatch: batch)
        #expect(status.completed == 20 && status.total == 40)
        #expect(Set(next.map(\.id)).count == 20)
        #expect(Set(next.map(\.id)).isDisjoint(with: held.map(\.id)))
        // …and the ends travelled in fewer calls than ends
        let sizes = calls.withLock { $0 }
        #expect(sizes.reduce(0, +) == 20)
        #expect(sizes.count < 20, "\(sizes)")
    }

    @Test func aSlotGetsNoJobWhenTheCallClaimedFewerThanAsked() async throws {
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(3))
        let held = try await queue.claim(upTo: 2, worker: worker)
        let batcher = FinishBatcher(queue: queue, worker: worker)
        let first = try await batcher.finish(held[0], outcome: .completed(source: "disk", bytes: 1), claimingNext: true).next
        let second = try await batcher.finish(held[1], outcome: .completed(source: "disk", bytes: 1), claimingNext: true).next
        #expect(first != nil && second == nil)
    }

    @Test func anEndWhoseLeaseWasLostFailsAloneAndTheOthersTakeEffect() async throws {
        // Given three held jobs, one of them now leased to another worker
        let queue = try makeQueue()
        let batch = try await queue.enqueue(urls: urls(3))
        let held = try await queue.claim(upTo: 3, worker: worker)
        let stolen = held[1]
        _ = try await makeClient().send(["HSET", queue.keys.job(stolen.id), "lease", "other/1"])
        let batcher = FinishBatcher(queue: queue, worker: worker, callsInFlight: 1)
        // When all three end at once
        let results = await withTaskGroup(of: (String, Bool).self) { group in
            for job in held {
                group.addTask {
                    let result = await Self.end(job, .completed(source: "disk", bytes: 1), through: batcher)
                    if case .success(let answer) = result, answer.leaseWasLost { return (job.id, false) }
                    return (job.id, true)
                }
            }
            return await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
        }
        // Then only the stolen one reports its lease lost, and it stays active
        #expect(results == [held[0].id: true, stolen.id: false, held[2].id: true])
        #expect(try await queue.status(ofBatch: batch).completed == 2)
        #expect(try await makeClient().send(["HGET", queue.keys.job(stolen.id), "state"]).string == "active")
    }

    @Test func anEndWhoseLeaseWasLostStillGetsTheJobClaimedForItsSlot() async throws {
        // Given two queued jobs, the worker holding one whose lease another worker took since
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(2))
        let held = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        _ = try await makeClient().send(["HSET", queue.keys.job(held.id), "lease", "other/1"])
        let batcher = FinishBatcher(queue: queue, worker: worker)
        // When its end asks for the slot's next job
        let answer = try await batcher.finish(held, outcome: .completed(source: "disk", bytes: 1), claimingNext: true)
        // Then the end is refused, and the other job, which the call leased
        // to this worker, is handed to the slot rather than left to stall
        #expect(answer.leaseWasLost)
        let next = try #require(answer.next, "the job claimed for the slot was dropped")
        #expect(next.id != held.id)
        #expect(try await makeClient().send(["HGET", queue.keys.job(next.id), "worker"]).string == worker)
    }

    @Test func aSingleEndWhoseLeaseWasLostReleasesWhatItClaimedBeforeItThrows() async throws {
        // Given two queued jobs, the caller holding one whose lease another worker took since
        let queue = try makeQueue()
        _ = try await queue.enqueue(urls: urls(2))
        let held = try #require(try await queue.claim(upTo: 1, worker: worker).first)
        _ = try await makeClient().send(["HSET", queue.keys.job(held.id), "lease", "other/1"])
        // When it ends the job alone, claiming one more
        await #expect(throws: SchedulerError.leaseLost(jobID: held.id)) {
            try await queue.finish(held, outcome: .completed(source: "disk", bytes: 1), worker: worker, claimingNext: 1)
        }
        // Then the other job is queued again, for whoever claims next
        let again = try await queue.claim(upTo: 1, worker: "another-worker")
        #expect(again.map(\.id).count == 1 && again.first?.id != held.id)
    }

    @Test func aCallThatFailsFailsEveryEndItCarried() async throws {
        // A queue whose Redis does not answer: nothing listens on loopback port 1.
        let client = RedisClient(url: RedisURL(host: "127.0.0.1", port: 1), timeout: .seconds(2))
        let queue = try JobQueue(client: client, name: TestEnvironment.uniqueName("q"))
        let job = Job(id: "1", url: "https://images.example/1.jpg", batches: ["b"], priority: "normal",
                      destination: "disk", processing: "", attempt: 1, leaseToken: "\(worker)/1", timeout: nil, timeInQueue: nil)
        let batcher = FinishBatcher(queue: queue, worker: worker)
        let outcome = JobOutcome.completed(source: "disk", bytes: 1)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    let result = await Self.end(job, outcome, through: batcher)
                    if case .failure(.redis) = result { return true }
                    return false
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == [true, true, true])
    }

    /// `batcher.finish` of `job` as a result, claiming no next job.
    private static func end(_ job: Job, _ outcome: JobOutcome, through batcher: FinishBatcher) async -> Result<FinishBatcher.Answer, SchedulerError> {
        do {
            return .success(try await batcher.finish(job, outcome: outcome, claimingNext: false))
        } catch {
            return .failure(error)
        }
    }
}
