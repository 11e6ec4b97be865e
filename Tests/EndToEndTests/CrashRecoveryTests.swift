import Foundation
import Scheduler
import Testing
import TestSupport

/// A worker that dies without a word (SIGKILL, a lost host) loses nothing:
/// its leases expire and a live worker runs its jobs again.
@Suite(.serialized)
struct CrashRecoveryTests {
    @Test func killedWorkersJobsRunAgainWithinTheLease() async throws {
        // Given two workers with 3 s leases and four slots each, and eight
        // ~340 KB images served through /slow/ (nginx sends 100 KB at once,
        // then 100 KB a second: about 3 s each), so both workers hold jobs
        // for a while
        let lease: TimeInterval = 3
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("crash", count: 8, width: 700, height: 700, slow: true)

        try await withWorkers(2, queue: queue, cacheDirectory: cache, concurrency: 4,
                              arguments: ["--lease-duration", String(Int(lease))]) { workers in
            let (victim, survivor) = (workers[0], workers[1])
            let victimMarker = ":\(victim.processIdentifier):", survivorMarker = ":\(survivor.processIdentifier):"
            let batch = try await queue.enqueue(images.map(\.url))

            // When worker A has started jobs (and B too, so B is busy when A dies)
            let bothStarted = await eventually {
                let started = ((try? await queue.events(ofBatch: batch)) ?? []).filter { $0.kind == .started }
                return started.contains { $0.worker.contains(victimMarker) }
                    && started.contains { $0.worker.contains(survivorMarker) }
            }
            try #require(bothStarted, "both workers should have started jobs:\n\(workers.logs)")

            // …and it is killed mid-download
            let killedAt = Date()
            let killed = await victim.kill()
            let killResult = try #require(killed, "the killed worker did not go away")
            #expect(!killResult.exited, "the worker should have died of SIGKILL: \(killResult)")
            let eventsAtKill = try await queue.events(ofBatch: batch)
            let victimJobs = Set(eventsAtKill.filter { $0.kind == .started && $0.worker.contains(victimMarker) }.compactMap(\.jobID))
            let finishedByVictim = Set(eventsAtKill.filter { $0.kind == .completed && $0.worker.contains(victimMarker) }
                .compactMap(\.jobID))
            let unfinished = victimJobs.subtracting(finishedByVictim)
            try #require(!unfinished.isEmpty, "A finished all its jobs before the kill:\n\(eventsAtKill.summary)")

            // Then the batch finishes with every job completed…
            let status = try await queue.waitUntilFinished(batch: batch, timeout: .seconds(60))
            #expect(status.completed == images.count, "\(status)\n\(workers.logs)")
            #expect(status.failed == 0 && status.dead == 0 && status.cancelled == 0, "\(status)")

            // …each exactly once
            let events = try await queue.events(ofBatch: batch)
            let completed = events.filter { $0.kind == .completed }
            #expect(completed.count == images.count, "\(events.summary)")
            #expect(Set(completed.compactMap(\.jobID)).count == images.count, "\(events.summary)")
            #expect(Set(completed.compactMap(\.url)) == Set(images.map(\.url.absoluteString)), "\(events.summary)")

            // …A's unfinished jobs, and only those, stalled once (B kept its leases)…
            let stalled = events.filter { $0.kind == .stalled }
            #expect(Set(stalled.compactMap(\.jobID)) == unfinished, "A held \(unfinished.sorted()):\n\(events.summary)")
            #expect(stalled.count == unfinished.count, "\(events.summary)")
            for event in stalled {
                #expect(event.worker.contains(victimMarker), "a stalled job should name the dead worker: \(event.summary)")
                #expect(event.fields["stalls"] == "1", "\(event.summary)")
            }

            // …no sooner than the kill and within the lease (plus the
            // survivor's renewal tick and a margin for a loaded machine)…
            for event in stalled {
                let at = try #require(event.timestamp, "\(event.summary)")
                let delay = Double(at) / 1000 - killedAt.timeIntervalSince1970
                #expect(delay > 0 && delay <= lease + 4, "stalled \(delay) s after the kill: \(event.summary)")
            }

            // …and were completed by B, which claimed them again after the stall
            for job in unfinished {
                let history = events.filter { $0.jobID == job }
                let done = history.filter { $0.kind == .completed }
                #expect(done.count == 1 && done.allSatisfy { $0.worker.contains(survivorMarker) },
                        "job \(job) should be completed once, by B:\n\(history.summary)")
                let stallIndex = history.firstIndex { $0.kind == .stalled }
                let restartIndex = history.lastIndex { $0.kind == .started && $0.worker.contains(survivorMarker) }
                #expect(stallIndex != nil && restartIndex != nil && stallIndex! < restartIndex!,
                        "job \(job) should be started by B after it stalled:\n\(history.summary)")
            }

            // …into byte-identical files, and B is still running
            for image in images {
                let original = try image.contents()
                #expect((try? Data(contentsOf: cachedFile(for: image.url, in: cache))) == original,
                        "cache entry of \(image.url) differs from the origin")
            }
            #expect(survivor.isRunning, "\(workers.logs)")
        }
    }
}
