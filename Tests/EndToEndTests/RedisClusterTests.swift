import Foundation
import Scheduler
import Testing
import TestSupport

/// Warmer on a real Redis Cluster (three masters, three replicas), given the
/// address of a node that does not serve the queue's slot: redirects are
/// followed, a slot moving to another master (with its `ASK` phase) and a
/// master dying mid-batch lose nothing, and queues on different masters run
/// side by side. Each test has a cluster of its own, so the four run side
/// by side too (scripts/test.sh runs them after the rest of the suite, by
/// themselves).
@Suite
struct RedisClusterTests {
    @Test func aWorkerAndTheCommandsWorkThroughANodeThatDoesNotServeTheQueue() async throws {
        try await withCluster { cluster in
            // Given a queue whose slot lives on one master, reached through another
            let (name, slot, owner) = try await queueServed(in: cluster)
            let entry = try #require(try await cluster.masters().first { $0.id != owner.id })
            let queue = try QueueProbe(redisURL: entry.url, name: name)
            #expect(!entry.serves(slot))
            let cache = try TestEnvironment.temporaryDirectory("cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let images = try await Origin.makeImages("cluster", count: 6)
            let missing = try Origin.missingURL()

            // When a batch is enqueued there, and another one enqueued and cancelled
            let batch = try await queue.enqueue(images.map(\.url) + [missing])
            let status = try await warmer(["status"] + queue.redisArguments + [batch])
            #expect(status.status == 0, "\(status)")
            let counters = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
            #expect(counters["total"] as? Int == 7 && counters["pending"] as? Int == 7, "\(status)")
            let doomed = try await queue.enqueue(try await Origin.makeImages("cluster-cancel", count: 2).map(\.url))
            let cancel = try await warmer(["cancel"] + queue.redisArguments + [doomed])
            #expect(cancel.status == 0 && cancel.standardOutput.contains("cancelled 2 job(s)"), "\(cancel)")
            let cancelled = try await queue.queue.status(ofBatch: doomed)
            #expect(cancelled.cancelled == 2 && cancelled.isFinished, "\(cancelled)")

            // …and followed by `warmer watch` while a worker, pointed there too, runs it
            let watch = try CollectedProcess(["watch"] + queue.redisArguments + ["--batch", batch, "--json"])
            try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 4) { workers in
                // Then the batch finishes: every image completed, the missing one failed
                let finished = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(60))
                #expect(finished.total == 7 && finished.completed == 6 && finished.failed == 1, "\(finished)\n\(workers.logs)")
                #expect(finished.dead == 0 && finished.cancelled == 0, "\(finished)")
                let completed = try await queue.events(ofBatch: batch).filter { $0.kind == .completed }
                #expect(Set(completed.compactMap(\.url)) == Set(images.map(\.url.absoluteString)), "\(completed.summary)")
                #expect(completed.count == 6, "\(completed.summary)")
                #expect(!workers[0].log.contains("MOVED"), "\(workers.logs)")
            }
            let watched = try #require(await watch.waitForExit(timeout: .seconds(30)), "warmer watch did not exit")
            #expect(watched.exited && watched.status == 1, "\(watched)")
            let types = watched.outputLines.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["type"] as? String
            }
            #expect(types.filter { $0 == "completed" }.count == 6 && types.filter { $0 == "failed" }.count == 1, "\(watched)")
            #expect(watched.outputLines.last?.contains("batchCompleted") == true, "\(watched)")

            // …and `dead list` there shows the failed job
            let dead = try await warmer(["dead", "list"] + queue.redisArguments)
            #expect(dead.status == 0 && dead.outputLines.count == 1, "\(dead)")
            #expect(dead.standardOutput.contains("http_404\t\(missing.absoluteString)"), "\(dead)")
        }
    }

    @Test func aBatchFinishesWhileItsSlotMovesToAnotherMaster() async throws {
        try await withCluster { cluster in
            // Given a batch of slow downloads on a queue reached through a third master
            let (name, slot, source) = try await queueServed(in: cluster)
            let masters = try await cluster.masters()
            let target = try #require(masters.first { $0.id != source.id })
            let entry = try #require(masters.first { $0.id != source.id && $0.id != target.id })
            let queue = try QueueProbe(redisURL: entry.url, name: name)
            let cache = try TestEnvironment.temporaryDirectory("cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let images = try await Origin.makeImages("cluster-move", count: 8, width: 600, height: 600, slow: true)

            try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
                let batch = try await queue.enqueue(images.map(\.url))
                let midBatch = await eventually(timeout: .seconds(30)) {
                    ((try? await queue.queue.status(ofBatch: batch))?.completed ?? 0) >= 1
                }
                try #require(midBatch, "no job completed:\n\(workers.logs)")

                // When the slot moves to another master mid-batch, with a
                // pause while the keys are moved and the source answers ASK
                try await cluster.moveSlot(slot, from: source, to: target) {
                    let asked = try await cluster.cli(source.port, ["HGET", queue.queue.keys.batch(batch), "total"])
                    #expect(asked.standardOutput.hasPrefix("ASK \(slot) "), "\(asked)")
                    let during = try await queue.queue.status(ofBatch: batch)
                    #expect(during.total == images.count, "\(during)")
                    try await Task.sleep(for: .seconds(2))
                }
                #expect(try await cluster.owner(ofSlot: slot).id == target.id)

                // Then the batch finishes with every job completed, once
                let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(90))
                #expect(status.total == images.count && status.completed == images.count, "\(status)\n\(workers.logs)")
                #expect(status.failed == 0 && status.dead == 0 && status.cancelled == 0, "\(status)")
                let completed = try await queue.events(ofBatch: batch).filter { $0.kind == .completed }
                #expect(completed.count == images.count && Set(completed.compactMap(\.jobID)).count == images.count,
                        "\(completed.summary)")
                #expect(try await queue.queue.queuedCount() == 0)
                // …and the worker logged the slot's new owner
                #expect(workers[0].log.contains("Redis cluster slot moved"), "\(workers.logs)")
                #expect(workers[0].log.contains("127.0.0.1:\(target.port)"), "\(workers.logs)")
            }
        }
    }

    @Test func aBatchFinishesAfterTheMasterServingItsSlotDies() async throws {
        try await withCluster { cluster in
            // Given a batch of slow downloads on a queue reached through another master
            let (name, slot, owner) = try await queueServed(in: cluster)
            let entry = try #require(try await cluster.masters().first { $0.id != owner.id })
            let queue = try QueueProbe(redisURL: entry.url, name: name)
            let cache = try TestEnvironment.temporaryDirectory("cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let images = try await Origin.makeImages("cluster-failover", count: 8, width: 600, height: 600, slow: true)

            try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2,
                                  arguments: ["--lease-duration", "5"]) { workers in
                let batch = try await queue.enqueue(images.map(\.url))
                let midBatch = await eventually(timeout: .seconds(30)) {
                    ((try? await queue.queue.status(ofBatch: batch))?.completed ?? 0) >= 1
                }
                try #require(midBatch, "no job completed:\n\(workers.logs)")

                // When that master is killed mid-batch
                try cluster.kill(port: owner.port)

                // Then a replica takes over, the worker follows it, and the
                // batch finishes with every job completed, once
                let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(120))
                let promoted = try await cluster.owner(ofSlot: slot)
                #expect(promoted.port != owner.port, "\(promoted)")
                #expect(status.total == images.count && status.completed == images.count, "\(status)\n\(workers.logs)")
                #expect(status.failed == 0 && status.dead == 0 && status.cancelled == 0, "\(status)")
                let completed = try await queue.events(ofBatch: batch).filter { $0.kind == .completed }
                #expect(Set(completed.compactMap(\.jobID)).count == images.count, "\(completed.summary)")
                #expect(Set(completed.compactMap(\.url)) == Set(images.map(\.url.absoluteString)), "\(completed.summary)")
                #expect(workers[0].isRunning, "\(workers.logs)")
                #expect(workers[0].log.contains("Redis cluster slot moved"), "\(workers.logs)")
                #expect(workers[0].log.contains("127.0.0.1:\(promoted.port)"), "\(workers.logs)")
            }
        }
    }

    @Test func queuesOnDifferentMastersRunSideBySideThroughOneNode() async throws {
        try await withCluster { cluster in
            // Given two queues whose slots live on two different masters, and a
            // node serving neither
            let (firstName, firstSlot, firstOwner) = try await queueServed(in: cluster)
            var second: (name: String, slot: Int, owner: RedisCluster.Node)
            repeat { second = try await queueServed(in: cluster) } while second.owner.id == firstOwner.id
            let entry = try #require(try await cluster.nodes().first { !$0.serves(firstSlot) && !$0.serves(second.slot) })
            let queues = [try QueueProbe(redisURL: entry.url, name: firstName), try QueueProbe(redisURL: entry.url, name: second.name)]
            let cache = try TestEnvironment.temporaryDirectory("cache")
            defer { try? FileManager.default.removeItem(at: cache) }

            // When a worker for each queue, both pointed at that node, runs a batch on each
            try await withWorkers(queue: queues[0], cacheDirectory: cache) { first in
                try await withWorkers(queue: queues[1], cacheDirectory: cache) { other in
                    var batches: [(QueueProbe, String, [OriginImage])] = []
                    for (index, queue) in queues.enumerated() {
                        let images = try await Origin.makeImages("cluster-side-\(index)", count: 5)
                        batches.append((queue, try await queue.enqueue(images.map(\.url)), images))
                    }
                    // Then both finish, every job completed once, on its own queue
                    for (queue, batch, images) in batches {
                        let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(60))
                        #expect(status.total == 5 && status.completed == 5, "\(status)\n\((first + other).logs)")
                        #expect(status.failed == 0 && status.dead == 0 && status.cancelled == 0, "\(status)")
                        let completed = try await queue.events(ofBatch: batch).filter { $0.kind == .completed }
                        #expect(completed.count == 5, "\(completed.summary)")
                        #expect(Set(completed.compactMap(\.url)) == Set(images.map(\.url.absoluteString)), "\(completed.summary)")
                    }
                    let served = try await [cluster.owner(ofSlot: firstSlot), cluster.owner(ofSlot: second.slot)]
                    #expect(served[0].id != served[1].id)
                }
            }
        }
    }

    // MARK: Helpers

    /// Starts a cluster, runs `body`, and stops the cluster however `body` ends.
    private func withCluster(_ body: (RedisCluster) async throws -> Void) async throws {
        let cluster = try await RedisCluster.start()
        do {
            try await body(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    /// A new queue name, its slot and the master serving it.
    private func queueServed(in cluster: RedisCluster) async throws -> (name: String, slot: Int, owner: RedisCluster.Node) {
        let name = TestEnvironment.uniqueName("cluster")
        let slot = try await cluster.slot(ofQueue: name)
        return (name, slot, try await cluster.owner(ofSlot: slot))
    }
}
