import Foundation
import Scheduler
import Testing
import TestSupport

/// Identical work asked for by several batches is one job in the queue: the
/// origin serves it once, and it counts in every batch.
@Suite("Worker coalescing", .serialized)
struct WorkerCoalescingTests {
    @Test func aBatchThatJoinsARunningJobGetsItsLaterProgressEvents() async throws {
        // Given a worker downloading one large image slowly (several seconds) for batch A
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("join", count: 1, width: 1200, height: 1200, slow: true)

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1) { workers in
            let a = try await queue.enqueue(images.map(\.url))
            let progressing = await eventually {
                ((try? await queue.events(ofBatch: a)) ?? []).contains { $0.kind == .progress }
            }
            try #require(progressing, "the job sent no progress:\n\(workers.logs)")

            // When batch B asks for the same URL while it runs
            let b = try await queue.enqueue(images.map(\.url))
            _ = try await queue.waitUntilFinished(batch: b, timeout: .seconds(60))

            // Then B's stream has the job's progress events from then on, as A's has
            let eventsA = try await queue.events(ofBatch: a), eventsB = try await queue.events(ofBatch: b)
            let job = try #require(eventsA.first { $0.kind == .started }?.jobID)
            let progressB = eventsB.filter { $0.kind == .progress && $0.jobID == job }
            #expect(!progressB.isEmpty, "B got no progress event of the job it joined:\n\(eventsB.summary)")
            let joinedAt = try #require(eventsB.first?.timestamp)
            let laterInA = eventsA.filter { $0.kind == .progress && ($0.timestamp ?? 0) > joinedAt + 300 }
            #expect(progressB.count >= laterInA.count, "A: \(laterInA.count) progress events after the join, B: \(progressB.count)")
            #expect(eventsB.contains { $0.kind == .completed && $0.jobID == job }, "\(eventsB.summary)")
        }
    }

    @Test func twoBatchesSharing50URLsCause50OriginRequestsAndBothCountThem() async throws {
        // Given sixty images, and two batches that share the first fifty and
        // each have five of their own
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("shared", count: 60)
        let shared = images[0..<50], onlyA = images[50..<55], onlyB = images[55..<60]

        // When both are enqueued before any worker runs…
        let a = try await queue.enqueue((shared + onlyA).map(\.url))
        let b = try await queue.enqueue((shared + onlyB).map(\.url))

        // (the queue holds sixty jobs, not a hundred and ten)
        #expect(try await queue.queue.queuedCount() == 60)

        // …and two workers drain them
        try await withWorkers(2, queue: queue, cacheDirectory: cache, concurrency: 4) { workers in
            // Then both batches finish with their 55 URLs completed
            let statusA = try await queue.waitUntilFinished(batch: a, timeout: .seconds(60))
            let statusB = try await queue.waitUntilFinished(batch: b, timeout: .seconds(60))
            for status in [statusA, statusB] {
                #expect(status.total == 55 && status.completed == 55, "\(status)\n\(workers.logs)")
                #expect(status.failed == 0 && status.dead == 0 && status.cancelled == 0, "\(status)")
            }

            // …each batch's stream has one `completed` event per URL, and a
            // shared URL's event carries the same job id in both streams
            let eventsA = try await queue.events(ofBatch: a), eventsB = try await queue.events(ofBatch: b)
            let jobsA = try completedJobs(eventsA), jobsB = try completedJobs(eventsB)
            #expect(Set(jobsA.keys) == Set((shared + onlyA).map(\.url.absoluteString)), "\(eventsA.summary)")
            #expect(Set(jobsB.keys) == Set((shared + onlyB).map(\.url.absoluteString)), "\(eventsB.summary)")
            for image in shared {
                let url = image.url.absoluteString
                #expect(jobsA[url] != nil && jobsA[url] == jobsB[url], "\(url): job \(jobsA[url] ?? "-") in A, \(jobsB[url] ?? "-") in B")
            }
            // (sixty jobs in all: the batches' own URLs are jobs of their own)
            #expect(Set(jobsA.values).union(jobsB.values).count == 60)

            // …nginx served every image exactly once (it logs a request when
            // the response ends: wait for every line, then a moment for strays)
            let paths = images.map(\.path)
            let allLogged = await eventually {
                paths.allSatisfy { ((try? Origin.requestCount(path: $0)) ?? 0) >= 1 }
            }
            #expect(allLogged, "some images were never requested")
            try await Task.sleep(for: .milliseconds(500))
            let counts: [String: Int] = try Dictionary(uniqueKeysWithValues: paths.map { ($0, try Origin.requestCount(path: $0)) })
            let requests: Int = counts.values.reduce(0, +)
            #expect(requests == 60, "\(counts.filter { $0.value != 1 })")
            #expect(counts.values.allSatisfy { $0 == 1 }, "requested more than once: \(counts.filter { $0.value != 1 })")

            // …and the cached files are the origin's
            for image in images {
                let original = try image.contents()
                #expect((try? Data(contentsOf: cachedFile(for: image.url, in: cache))) == original,
                        "cache entry of \(image.url) differs from the origin")
            }
        }
    }
}

/// URL → job id of the `completed` events; fails on a URL completed twice.
private func completedJobs(_ events: [JobEvent]) throws -> [String: String] {
    var jobs: [String: String] = [:]
    for event in events where event.kind == .completed {
        let url = try #require(event.url), job = try #require(event.jobID)
        #expect(jobs[url] == nil, "\(url) completed twice:\n\(events.summary)")
        jobs[url] = job
    }
    return jobs
}
