import Foundation
import Scheduler
import Testing
import TestSupport

/// Cancelling a batch reaches downloads already running on any worker: they
/// stop at once, except work another batch still needs.
@Suite("Worker cancellation", .serialized)
struct WorkerCancellationTests {
    @Test func cancellingABatchStopsItsRunningDownloadsOnTwoWorkersWithinASecond() async throws {
        // Given two workers with four slots each, and six ~700 KB images
        // through /slow/ (100 KB at once, then 100 KB a second: ~6 s each)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("cancel", count: 6, width: 1000, height: 1000, slow: true)
        let sizes = try Dictionary(uniqueKeysWithValues: images.map { ($0.path, try $0.contents().count) })
        let kept = images[0], cancelled = Array(images.dropFirst())

        try await withWorkers(2, queue: queue, cacheDirectory: cache, concurrency: 4) { workers in
            // …batch X of the six, and batch Y that needs X's first image too
            let x = try await queue.enqueue(images.map(\.url))
            let y = try await queue.enqueue([kept.url])

            // …whose downloads are running on both workers (every job started
            // and reported progress, so its request is at the origin)
            let running = await eventually(timeout: .seconds(30)) {
                let events = (try? await queue.events(ofBatch: x)) ?? []
                let started = events.filter { $0.kind == .started }
                let progressing = Set(events.filter { $0.kind == .progress }.compactMap(\.jobID))
                return Set(started.compactMap(\.jobID)).count == images.count && progressing.count == images.count
                    && workers.allSatisfy { worker in started.contains { $0.worker.contains(":\(worker.processIdentifier):") } }
            }
            let eventsBefore = try await queue.events(ofBatch: x)
            try #require(running, "the downloads did not all start on both workers:\n\(eventsBefore.summary)\n\(workers.logs)")
            let jobOf = Dictionary(eventsBefore.filter { $0.kind == .started }.compactMap { event in
                event.url.flatMap { url in event.jobID.map { (url, $0) } }
            }) { first, _ in first }
            let keptJob = try #require(jobOf[kept.url.absoluteString])
            let cancelledJobs = Set(cancelled.compactMap { jobOf[$0.url.absoluteString] })
            try #require(cancelledJobs.count == cancelled.count && !cancelledJobs.contains(keptJob), "\(eventsBefore.summary)")
            let before = try await queue.queue.status(ofBatch: x)
            try #require(before.ended == 0, "a download ended before the cancel: \(before)")

            // When X is cancelled
            let cancellation = try await queue.queue.cancel(batch: x)

            // Then the five jobs only X needed are cancelled, running ones signalled
            #expect(cancellation.cancelledJobs == 5 && cancellation.abortedRunningJobs == 5, "\(cancellation)")

            // …and within a second and a half nginx logged each of their
            // requests as ended early, with fewer bytes than the file
            // (the origin's side of a client that hung up mid-body)
            func abortedAtOrigin() -> [String: [(status: Int, bytes: Int)]] {
                Dictionary(uniqueKeysWithValues: cancelled.map { ($0.path, (try? Origin.loggedRequests(path: $0.path, slow: true)) ?? []) })
            }
            let aborted = await eventually(timeout: .milliseconds(1500), pollingEvery: .milliseconds(20)) {
                abortedAtOrigin().allSatisfy { path, requests in requests.contains { $0.bytes < sizes[path]! } }
            }
            #expect(aborted, "not every cancelled download was cut short within 1.5 s: \(abortedAtOrigin())\n\(workers.logs)")

            // …both workers say they aborted jobs of X (and only those)
            let bothLogged = await eventually(timeout: .seconds(10)) {
                workers.allSatisfy { !abortedJobs(in: $0.log).isEmpty }
            }
            #expect(bothLogged, "\(workers.logs)")
            for (index, worker) in workers.enumerated() {
                let logged = abortedJobs(in: worker.log)
                #expect(logged.isSubset(of: cancelledJobs), "worker \(index) aborted \(logged.sorted()), X's cancelled jobs are \(cancelledJobs.sorted())")
            }

            // …X is finished: all six URLs cancelled, with `cancelled` events
            let statusX = try await queue.waitUntilFinished(batch: x)
            #expect(statusX.cancelled == 6 && statusX.completed == 0, "\(statusX)")
            #expect(statusX.failed == 0 && statusX.dead == 0, "\(statusX)")
            let eventsX = try await queue.events(ofBatch: x)
            let cancelledEvents = eventsX.filter { $0.kind == .cancelled }
            #expect(Set(cancelledEvents.compactMap(\.jobID)) == cancelledJobs.union([keptJob]), "\(eventsX.summary)")
            #expect(!eventsX.contains { $0.kind == .completed || $0.kind == .failed }, "\(eventsX.summary)")

            // …Y's job goes on and completes, from one full download, into a byte-identical file
            let statusY = try await queue.waitUntilFinished(batch: y, timeout: .seconds(60))
            #expect(statusY.completed == 1 && statusY.total == 1, "\(statusY)\n\(workers.logs)")
            let eventsY = try await queue.events(ofBatch: y)
            #expect(eventsY.filter { $0.kind == .completed }.map(\.jobID) == [keptJob], "\(eventsY.summary)")
            let original = try kept.contents()
            #expect((try? Data(contentsOf: cachedFile(for: kept.url, in: cache))) == original)
            let keptRequests = try Origin.loggedRequests(path: kept.path, slow: true)
            #expect(keptRequests.count == 1 && keptRequests.first?.bytes == original.count, "\(keptRequests)")

            // …the cancelled downloads were not started again, and every
            // aborted job was acknowledged (no lease left behind)
            for image in cancelled {
                let requests = try Origin.loggedRequests(path: image.path, slow: true)
                #expect(requests.count == 1, "\(image.path): \(requests)")
            }
            let statistics = try await queue.queue.statistics()
            #expect(statistics.active == 0 && statistics.queued == 0 && statistics.delayed == 0, "\(statistics)")

            // …and no worker exited
            for (index, worker) in workers.enumerated() {
                #expect(worker.isRunning, "worker \(index) exited:\n\(worker.log)")
            }
        }
    }
}

/// The job ids a worker logged as aborted: `… job cancelled; aborting it job=ID`.
private func abortedJobs(in log: String) -> Set<String> {
    Set(log.split(separator: "\n").filter { $0.contains("job cancelled; aborting it") }.compactMap { line in
        line.split(separator: " ").first { $0.hasPrefix("job=") }.map { String($0.dropFirst(4)) }
    })
}
