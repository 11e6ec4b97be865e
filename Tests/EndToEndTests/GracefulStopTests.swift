import Foundation
import Scheduler
import Testing
import TestSupport

/// Acceptance 8: SIGTERM lets running downloads finish.
@Suite(.serialized)
struct GracefulStopTests {
    @Test func sigtermMidDownloadLetsRunningJobsFinishThenExitsZero() async throws {
        // Given a worker downloading three ~260 KB images through /slow/ (nginx
        // sends 100 KB at once, then 100 KB a second: about 2 s each)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("stop", count: 3, width: 600, height: 600, slow: true)

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 4, gracePeriod: 15) { workers in
            let worker = workers[0]
            let batch = try await queue.enqueue(images.map(\.url))
            let allStarted = await eventually {
                let events = (try? await queue.events(ofBatch: batch)) ?? []
                return events.filter { $0.kind == .started }.count == images.count
            }
            try #require(allStarted, "the worker did not start every job:\n\(worker.log)")
            // (A slow test machine may have let a download end already; what
            // matters is that some are still in flight when the signal lands.)
            let before = try await queue.queue.status(ofBatch: batch)
            let eventsBefore = try await queue.events(ofBatch: batch)
            try #require(before.ended < images.count, "every download ended before SIGTERM: \(before)\n\(eventsBefore.summary)")

            // When it receives SIGTERM mid-download
            worker.requestStop()
            let exit = await worker.waitForExit()

            // Then it exits with status 0 within its grace period…
            let result = try #require(exit, "the worker did not exit after SIGTERM; killed it. Log:\n\(worker.log)")
            #expect(result.exited && result.status == 0, "\(result)")

            // …having completed every job it held (none failed or went back to the queue)
            let after = try await queue.queue.status(ofBatch: batch)
            #expect(after.completed == images.count, "\(after)\n\(result.standardError)")
            #expect(after.failed == 0 && after.pending == 0, "\(after)")
            #expect(try await queue.queue.queuedCount() == 0)
            for image in images {
                let original = try image.contents()
                #expect((try? Data(contentsOf: cachedFile(for: image.url, in: cache))) == original)
            }
        }
    }

    @Test func aJobStillRunningWhenTheGracePeriodEndsIsReleasedNotFailed() async throws {
        // Given a worker with one slot, busy with a download that lasts ~4 s
        // (a ~500 KB image through /slow/), and a 1 s grace period
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("grace", count: 1, width: 850, height: 850, slow: true)

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1, gracePeriod: 1) { workers in
            let worker = workers[0]
            let batch = try await queue.enqueue(images.map(\.url))
            let started = await eventually {
                ((try? await queue.events(ofBatch: batch)) ?? []).contains { $0.kind == .started }
            }
            try #require(started, "the worker did not start the job:\n\(worker.log)")

            // When it receives SIGTERM while every slot is busy
            worker.requestStop()
            let exit = await worker.waitForExit()

            // Then it exits 0 after the grace period, having released the job:
            // back in the queue on its first attempt, nothing counted as failed.
            let result = try #require(exit, "the worker did not exit after SIGTERM; killed it. Log:\n\(worker.log)")
            #expect(result.exited && result.status == 0, "\(result)")
            #expect(result.standardError.contains("grace period over"), "\(result.standardError)")
            let status = try await queue.queue.status(ofBatch: batch)
            #expect(status.pending == 1 && status.failed == 0 && status.completed == 0, "\(status)")
            #expect(try await queue.queue.queuedCount() == 1)
        }
    }

    @Test func aSecondSignalReleasesHeldJobsAtOnceAndAnotherWorkerCompletesThem() async throws {
        // Given a worker with a two-minute grace period, busy with two slow
        // downloads (~500 KB through /slow/: several seconds each)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("second", count: 2, width: 850, height: 850, slow: true)

        let batch = try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2, gracePeriod: 120) { workers in
            let worker = workers[0]
            let batch = try await queue.enqueue(images.map(\.url))
            let started = await eventually {
                ((try? await queue.events(ofBatch: batch)) ?? []).filter { $0.kind == .started }.count == images.count
            }
            try #require(started, "the worker did not start both jobs:\n\(worker.log)")

            // When it receives SIGTERM, begins to drain, and receives a second one
            worker.requestStop()
            let draining = await eventually { worker.log.contains("stopping: no new jobs") }
            try #require(draining, "the worker did not begin to drain:\n\(worker.log)")
            worker.process.send(SIGTERM)

            // Then it exits 0 long before its grace period, having released both
            // jobs unfinished: back in the queue, nothing failed
            let exit = try #require(await worker.process.waitForExit(timeout: .seconds(60)),
                                    "the worker still ran a minute after the second signal:\n\(worker.log)")
            #expect(exit.exited && exit.status == 0, "\(exit)")
            #expect(exit.standardError.contains("second stop signal"), "\(exit.standardError)")
            let status = try await queue.queue.status(ofBatch: batch)
            #expect(status.pending == images.count && status.failed == 0 && status.completed == 0, "\(status)")
            #expect(try await queue.queue.queuedCount() == images.count)
            return batch
        }

        // And another worker completes them
        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { _ in
            let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(60))
            #expect(status.completed == images.count && status.failed == 0, "\(status)")
        }
    }
}
