import Foundation
import Testing
import TestSupport

/// Issue 23's hardening leftovers, against a real `warmer serve`: a
/// processing spec is checked alike by `POST …/batches` and `/v1/cache`,
/// `warm=1` stores and reads one key, and cancelling a finished batch
/// changes nothing.
@Suite("Serve consistency")
struct ServeConsistencyTests {
    @Test func aBatchRefusesTheSpecsTheCacheRouteRefuses() async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        // Given a server whose processing limits allow sides of 100 px at most
        try await withServe(queue: queue, arguments: ["--cache-dir", cache.path, "--max-output-side", "100"]) { serve in
            let url = "http://127.0.0.1:1/x.jpg"
            for spec in ["frobnicate=1", "resize=200x0", "thumbnail=0", "quality=80"] {
                // When the same spec goes to both routes, then both refuse it
                let (read, posted) = try await askBothRoutes(serve, queue: queue, url: url, spec: spec)
                #expect(read.status == 400 && read.code == "bad_request", "\(spec): \(read)")
                #expect(posted.status == 422 && posted.code == "invalid_document", "\(spec): \(posted)")
                #expect(posted.body.contains("processing"), "\(spec): \(posted)")
            }
            #expect(try await queue.queue.queuedCount() == 0)
            // A spec within the limits is taken by both
            let spec = "thumbnail=50&format=webp"
            let (read, posted) = try await askBothRoutes(serve, queue: queue, url: url, spec: spec)
            #expect(read.status == 404 && read.code == "not_cached", "\(read)")
            #expect(posted.status == 201, "\(posted)")
        }
    }

    /// `GET /v1/cache` of `url` with processing `spec`, and a `processed`
    /// batch of `url` with the same spec posted to `queue`: both answers.
    private func askBothRoutes(_ serve: ServeProcess, queue: QueueProbe, url: String, spec: String) async throws
        -> (read: ServeProcess.Answer, posted: ServeProcess.Answer) {
        let read = try await serve.request(
            "GET", "/v1/cache?url=\(CacheServeProcess.encode(url))&processing=\(CacheServeProcess.encode(spec))",
            token: ServeProcess.readToken)
        let body = #"{"v":1,"urls":["\#(url)"],"destination":"processed","processing":"\#(spec)"}"#
        let posted = try await serve.request("POST", "/v1/queues/\(queue.name)/batches", body: body)
        return (read, posted)
    }

    @Test func aWarmedURLWithABackslashInItsUserIsReadBackFromTheKeyItWasStoredUnder() async throws {
        // Given an origin image, named by a URL whose user part holds a `\`
        let image = try await Origin.makeImages("serve-backslash", count: 1, width: 64, height: 48)[0]
        let folder = try TestEnvironment.temporaryDirectory("serve-backslash")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await CacheServeProcess(cacheDirectory: folder.appendingPathComponent("cache", isDirectory: true))
        defer { Task { await server.stop() } }
        let plain = image.url.absoluteString
        let url = plain.replacingOccurrences(of: "http://", with: "http://us\\er@")
        #expect(url.contains("\\") && url != plain)
        for processing in [nil, "thumbnail=16&format=png"] {
            // When it is asked for with warm=1, then the answer is the image just loaded
            var path = "/v1/cache?url=" + CacheServeProcess.encode(url) + "&warm=1"
            if let processing { path += "&processing=" + CacheServeProcess.encode(processing) }
            let warmed = try await server.get(path)
            #expect(warmed.status == 200, "\(processing ?? "original"): \(warmed)")
            if processing == nil { #expect(warmed.body == (try image.contents())) }
            // And a plain read of the same URL finds it too
            let again = try await server.get(path.replacingOccurrences(of: "&warm=1", with: ""))
            #expect(again.status == 200 && again.body == warmed.body, "\(processing ?? "original"): \(again)")
        }
    }

    @Test func cancellingAFinishedBatchLeavesItAsItWas() async throws {
        let queue = try QueueProbe()
        let image = try await Origin.makeImages("serve-cancel-finished", count: 1)[0]
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        try await withServe(queue: queue) { serve in
            // Given a batch that finished: its one URL completed
            let path = "/v1/queues/\(queue.name)/batches/done"
            try await withWorkers(queue: queue, cacheDirectory: cache) { _ in
                let body = #"{"v":1,"batch":"done","urls":["\#(image.url.absoluteString)"]}"#
                #expect(try await serve.request("POST", "/v1/queues/\(queue.name)/batches", body: body).status == 201)
                _ = try await queue.waitUntilFinished(batch: "done", timeout: .seconds(60))
            }
            let before = try await serve.request("GET", path, token: ServeProcess.readToken)
            #expect(before.json["completed"] as? Int == 1 && before.json["isFinished"] as? Bool == true, "\(before)")
            // When it is cancelled, then the answer says it had finished and nothing changes
            let cancelled = try await serve.request("DELETE", path)
            #expect(cancelled.status == 200, "\(cancelled)")
            #expect(cancelled.json["cancelledJobs"] as? Int == 0 && cancelled.json["alreadyFinished"] as? Bool == true, "\(cancelled)")
            let after = try await serve.request("GET", path, token: ServeProcess.readToken)
            #expect(after.json["cancelledAt"] == nil && after.json["cancelled"] as? Int == 0, "\(after)")
            #expect(after.body == before.body)
            // And `warmer cancel` says so too
            let command = try await warmer(["cancel"] + queue.redisArguments + ["done"])
            #expect(command.status == 0 && command.standardOutput.contains("already finished"), "\(command)")
        }
    }
}
