import Foundation
import Scheduler
import Testing
import TestSupport

/// `warmer worker --http-port`: `/metrics`, `/healthz`, `/readyz` and
/// `/v1/queue` against a real worker, Redis and origin.
@Suite(.serialized)
struct WorkerEndpointsTests {
    @Test func metricsScrapedDuringABatchMoveAndParseAsPrometheusText() async throws {
        // Given a worker with its HTTP server, warming slow images (a few
        // seconds each) and two that do not exist
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("metrics", count: 4, width: 600, height: 600, slow: true)
        let missing = try (0..<2).map { try Origin.url(path: "/\(TestEnvironment.uniqueName("missing"))-\($0).jpg") }
        let port = try freeLoopbackPort()
        let http = HTTPProbe(port: port)

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2,
                              arguments: ["--http-port", String(port)]) { workers in
            try await http.waitUntilAnswering()
            let batch = try await queue.enqueue(images.map(\.url) + missing)

            // When /metrics is scraped while the batch runs, and after it ended
            let firstCompleted = await eventually {
                ((try? await queue.events(ofBatch: batch)) ?? []).contains { $0.kind == .completed }
            }
            try #require(firstCompleted, "no job completed:\n\(workers[0].log)")
            let during = try await http.metrics()
            _ = try await queue.waitUntilFinished(batch: batch)
            let after = try await http.metrics()

            // Then both parse, and the counters moved between them
            let warmed = Double(images.count), missed = Double(missing.count), ends = Double(images.count + missing.count)
            let completed: [String: String] = ["destination": "disk", "outcome": "completed"]
            #expect(during.value("warmer_jobs_finished_total", completed) >= 1)
            #expect(after.value("warmer_jobs_finished_total", completed) == warmed)
            #expect(after.value("warmer_jobs_finished_total", completed) > during.value("warmer_jobs_finished_total", completed))
            #expect(after.value("warmer_jobs_finished_total", ["outcome": "failed", "code": "http_404"]) == missed)
            #expect(after.value("warmer_downloaded_bytes_total") > during.value("warmer_downloaded_bytes_total"))
            #expect(after.value("warmer_stored_bytes_total") >= after.value("warmer_downloaded_bytes_total") * 0.99)
            #expect(after.value("warmer_cache_results_total", ["source": "network"]) == warmed)
            #expect(after.value("warmer_pipeline_stage_seconds_count", ["stage": "download"]) >= ends)
            #expect(after.value("warmer_pipeline_stage_seconds_count", ["stage": "store"]) == warmed)
            #expect(after.value("warmer_job_duration_seconds_count") == ends)
            #expect(after.value("warmer_job_queue_wait_seconds_count") == ends)
            #expect(after.value("warmer_redis_round_trip_seconds_count") > 0)
            // Every end went through a finish call, several ends at most to a call
            #expect(after.value("warmer_finish_calls_total") >= 1 && after.value("warmer_finish_calls_total") <= ends)
            #expect(after.value("warmer_job_slots_free") == 2 && after.value("warmer_jobs_in_flight") == 0)
            // (The queue's depth, read every 5 s, is checked in the next test.)
            for state in ["queued", "active", "delayed", "dead", "intake"] {
                #expect(after.contains { $0.name == "warmer_queue_jobs" && $0.labels["state"] == state }, "no \(state) depth")
            }
            #expect(after.has("warmer_workers_alive") && after.value("warmer_queue_paused") == 0)
        }
    }

    @Test func queueEndpointReportsDepthByStateAndPause() async throws {
        // Given a paused queue holding three jobs and a worker serving /v1/queue
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("depth", count: 3)
        let port = try freeLoopbackPort()
        try await queue.queue.pause()
        _ = try await queue.enqueue(images.map(\.url))

        try await withWorkers(queue: queue, cacheDirectory: cache, arguments: ["--http-port", String(port)]) { _ in
            // When it is asked (once the worker has read the queue: at once, then every 5 s)
            let http = HTTPProbe(port: port)
            let answered = await eventuallyValue { () async -> HTTPProbe.Answer? in
                guard let answer = await http.get("/v1/queue"), answer.status == 200 else { return nil }
                return answer
            }
            let answer = try #require(answered, "/v1/queue never answered 200")

            // Then it answers the queue's depth and state as JSON, as the gauges do
            let metrics = try await http.metrics()
            #expect(metrics.value("warmer_queue_jobs", ["state": "queued"]) == 3)
            #expect(metrics.value("warmer_queue_paused") == 1 && metrics.has("warmer_workers_alive"))
            let body = answer.json
            #expect(body["queue"] as? String == queue.name, "\(answer)")
            #expect(body["queued"] as? Int == 3 && body["active"] as? Int == 0, "\(answer)")
            #expect(body["paused"] as? Bool == true, "\(answer)")
            #expect(body["dead"] as? Int == 0 && body["delayed"] as? Int == 0, "\(answer)")
        }
    }

    @Test func readinessFollowsRedisGoingAwayAndComingBack() async throws {
        // Given a worker on a Redis of this test's own
        let redis = try await RedisServer.start()
        defer { redis.stop() }
        let queue = try QueueProbe(redisURL: redis.url)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let port = try freeLoopbackPort()
        let http = HTTPProbe(port: port)

        try await withWorkers(queue: queue, cacheDirectory: cache, arguments: ["--http-port", String(port)]) { workers in
            try await http.waitUntilAnswering()
            let ready = await http.get("/readyz")
            #expect(ready?.status == 200, "\(ready.map { "\($0)" } ?? "no answer")")

            // When Redis stops, /readyz turns 503 with the reason (liveness stays 200)
            await redis.kill()
            let notReady = await eventuallyValue { () async -> HTTPProbe.Answer? in
                guard let answer = await http.get("/readyz"), answer.status == 503 else { return nil }
                return answer
            }
            let reason = try #require(notReady, "/readyz did not turn 503 without Redis:\n\(workers[0].log)").json["reason"] as? String
            #expect(reason?.contains("Redis unreachable") == true, "\(notReady.map { "\($0)" } ?? "")")
            #expect(await http.get("/healthz")?.status == 200)

            // And when it is back, 200 again
            try await redis.restart()
            let readyAgain = await eventually { await http.get("/readyz")?.status == 200 }
            #expect(readyAgain, "/readyz did not turn 200 when Redis came back:\n\(workers[0].log)")
        }
    }

    @Test func readinessIs503WhileTheWorkerDrains() async throws {
        // Given a worker busy with a slow download (about 4 s)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("drain", count: 1, width: 850, height: 850, slow: true)
        let port = try freeLoopbackPort()
        let http = HTTPProbe(port: port)

        try await withWorkers(queue: queue, cacheDirectory: cache, gracePeriod: 30,
                              arguments: ["--http-port", String(port)]) { workers in
            let worker = workers[0]
            try await http.waitUntilAnswering()
            let batch = try await queue.enqueue(images.map(\.url))
            let started = await eventually {
                ((try? await queue.events(ofBatch: batch)) ?? []).contains { $0.kind == .started }
            }
            try #require(started, "the worker did not start the job:\n\(worker.log)")
            #expect(await http.get("/readyz")?.status == 200)

            // When it is asked to stop
            worker.requestStop()

            // Then, while the job finishes, it is alive but not ready
            let draining = await eventuallyValue { () async -> HTTPProbe.Answer? in
                guard let answer = await http.get("/readyz"), answer.status == 503 else { return nil }
                return answer
            }
            let answer = try #require(draining, "/readyz did not turn 503 during the drain:\n\(worker.log)")
            #expect((answer.json["reason"] as? String)?.hasPrefix("draining") == true, "\(answer)")
            #expect(await http.get("/healthz")?.status == 200)
            let exit = try #require(await worker.waitForExit(), "the worker did not exit:\n\(worker.log)")
            #expect(exit.exited && exit.status == 0, "\(exit)")
            #expect(try await queue.queue.status(ofBatch: batch).completed == 1)
        }
    }

    @Test func healthReportsEachLoopTurning() async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let port = try freeLoopbackPort()

        try await withWorkers(queue: queue, cacheDirectory: cache, arguments: ["--http-port", String(port)]) { _ in
            try await HTTPProbe(port: port).waitUntilAnswering()
            let answer = try #require(await HTTPProbe(port: port).get("/healthz"))
            #expect(answer.status == 200, "\(answer)")
            let ages = answer.json["loop_ages_seconds"] as? [String: Double] ?? [:]
            #expect(Set(ages.keys) == ["claims", "leases", "control", "commands"], "\(answer)")
            #expect(answer.json["ok"] as? Bool == true, "\(answer)")
        }
    }

    @Test func aWorkerWhoseHTTPPortIsTakenExitsWithTheReasonAndHoldsNoJob() async throws {
        // Given a port another program listens on, and a queued job
        let listener = try LoopbackListener()
        defer { listener.close() }
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("taken", count: 1, width: 600, height: 600, slow: true)
        let batch = try await queue.enqueue(images.map(\.url))

        // When a worker is started with that port
        let result = try await warmer(["worker"] + queue.redisArguments + [
            "--cache-dir", cache.path, "--http-port", String(listener.port),
        ], timeout: .seconds(60))

        // Then it exits with an error naming the problem, and gave back any
        // job it had claimed meanwhile (nothing is left leased to it)
        #expect(result.exited && result.status != 0, "\(result)")
        #expect(result.standardError.localizedCaseInsensitiveContains("address already in use"), "\(result)")
        let status = try await queue.queue.status(ofBatch: batch)
        #expect(status.failed == 0, "\(status)")
        let leased = try await queue.queue.statistics().active
        #expect(leased == 0, "a job is still leased to the exited worker")
    }
}
