import Foundation
import Testing
import TestSupport

/// `warmer serve`'s queue, batch and dead-letter routes end to end: a real
/// server process and real workers on the test Redis. Every response is also
/// checked against docs/openapi.yaml (`withServe`). What a route answers on
/// its own (refused documents, priority changes, cancellations) is
/// WarmerServerTests' `QueueRouteTests`, in-process; here are the flows that
/// need a worker: a batch warmed, dead letters made by real failures and
/// retried, the workers seen by the queue.
@Suite("Serve API")
struct ServeAPITests {
    private func document(_ urls: [URL], batch: String? = nil, extra: String = "") -> String {
        let list = urls.map { "\"\($0.absoluteString)\"" }.joined(separator: ",")
        return #"{"v":1,\#(batch.map { "\"batch\":\"\($0)\"," } ?? "")\#(extra)"urls":[\#(list)]}"#
    }

    /// GET the batch until every URL has ended.
    private func waitUntilFinished(_ serve: ServeProcess, _ path: String) async throws -> [String: Any] {
        let finished = try await eventuallyValue(timeout: .seconds(60), pollingEvery: .milliseconds(200)) { () async throws -> [String: Any]? in
            let answer = try await serve.request("GET", path, token: ServeProcess.readToken)
            return answer.json["isFinished"] as? Bool == true ? answer.json : nil
        }
        return try #require(finished, "batch \(path) did not finish")
    }

    @Test func aBatchPostedOverHTTPIsWarmedByAWorkerAndAReplayEnqueuesNothing() async throws {
        let queue = try QueueProbe()
        let images = try await Origin.makeImages("serve-batch", count: 3)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        try await withServe(queue: queue) { serve in
            try await withWorkers(queue: queue, cacheDirectory: cache) { _ in
                let body = document(images.map(\.url), batch: "posted")
                let created = try await serve.request("POST", "/v1/queues/\(queue.name)/batches", body: body)
                #expect(created.status == 201, "\(created)")
                #expect(created.headers["location"] == "/v1/queues/\(queue.name)/batches/posted")
                #expect(created.json["batch"] as? String == "posted" && created.json["newJobs"] as? Int == 3)
                #expect(created.json["replayed"] as? Bool == false)

                let replayed = try await serve.request("POST", "/v1/queues/\(queue.name)/batches", body: body)
                #expect(replayed.status == 200 && replayed.json["replayed"] as? Bool == true, "\(replayed)")
                #expect(replayed.json["newJobs"] as? Int == 0)
                #expect(replayed.headers["location"] == created.headers["location"])

                let status = try await waitUntilFinished(serve, "/v1/queues/\(queue.name)/batches/posted")
                #expect(status["completed"] as? Int == 3 && status["total"] as? Int == 3, "\(status)")
                for image in images {
                    #expect(FileManager.default.fileExists(atPath: cachedFile(for: image.url, in: cache).path))
                }
                // Sent again after it finished: still the same batch, nothing new.
                let late = try await serve.request("POST", "/v1/queues/\(queue.name)/batches", body: body)
                #expect(late.status == 200 && late.json["newJobs"] as? Int == 0, "\(late)")
                // A new batch of the same URLs with freshFor: completed at once, no job.
                let fresh = try await serve.request("POST", "/v1/queues/\(queue.name)/batches",
                                                    body: document(images.map(\.url), batch: "fresh", extra: #""freshFor":3600,"#))
                #expect(fresh.status == 201 && fresh.json["newJobs"] as? Int == 0 && fresh.json["recent"] as? Int == 3, "\(fresh)")
                let freshStatus = try #require(fresh.json["status"] as? [String: Any])
                #expect(freshStatus["isFinished"] as? Bool == true && freshStatus["recent"] as? Int == 3, "\(freshStatus)")
            }
        }
    }

    @Test func anUnnamedBatchGetsAnIdOfItsOwnInLocation() async throws {
        let queue = try QueueProbe()
        try await withServe(queue: queue) { serve in
            let created = try await serve.request("POST", "/v1/queues/\(queue.name)/batches",
                                                  body: document([try Origin.missingURL()]))
            #expect(created.status == 201, "\(created)")
            let batch = try #require(created.json["batch"] as? String)
            #expect(created.headers["location"] == "/v1/queues/\(queue.name)/batches/\(batch)")
            let read = try await serve.request("GET", try #require(created.headers["location"]))
            #expect(read.status == 200 && read.json["total"] as? Int == 1, "\(read)")
        }
    }

    @Test func deadLettersAreListedRetriedAndPurged() async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let missing = try (0..<2).map { _ in try Origin.missingURL() }
        try await withServe(queue: queue) { serve in
            try await withWorkers(queue: queue, cacheDirectory: cache) { _ in
                let dead = "/v1/queues/\(queue.name)/dead"
                _ = try await serve.request("POST", "/v1/queues/\(queue.name)/batches", body: document(missing, batch: "lost"))
                _ = try await waitUntilFinished(serve, "/v1/queues/\(queue.name)/batches/lost")
                let listed = try await serve.request("GET", "\(dead)?limit=10", token: ServeProcess.readToken)
                #expect(listed.status == 200 && listed.json["count"] as? Int == 2, "\(listed)")
                let letters = try #require(listed.json["deadLetters"] as? [[String: Any]])
                #expect(Set(letters.compactMap { $0["url"] as? String }) == Set(missing.map(\.absoluteString)))
                #expect(letters.allSatisfy { $0["error"] as? String == "http_404" && $0["kind"] as? String == "job" })
                let first = try #require(letters.first?["id"] as? String)

                let retried = try await serve.request("POST", dead, body: #"{"ids":["\#(first)"]}"#)
                #expect(retried.status == 200 && retried.json["count"] as? Int == 1, "\(retried)")
                // The retried job runs again, fails again, and is dead again.
                let again = await eventually(timeout: .seconds(30)) {
                    let events = (try? await queue.events(ofBatch: "lost")) ?? []
                    return events.filter { $0.kind == .failed }.count == 3
                }
                #expect(again)
                let both = try await serve.request("POST", dead, body: #"{"ids":["x"],"all":true}"#)
                #expect(both.status == 400 && both.code == "bad_request", "\(both)")
                let purged = try await serve.request("DELETE", "\(dead)?all=true")
                #expect(purged.status == 200 && purged.json["count"] as? Int == 2, "\(purged)")
                let empty = try await serve.request("GET", dead)
                #expect(empty.json["count"] as? Int == 0 && (empty.json["deadLetters"] as? [Any])?.isEmpty == true, "\(empty)")
                let badLimit = try await serve.request("GET", "\(dead)?limit=0")
                #expect(badLimit.status == 400 && badLimit.code == "bad_request", "\(badLimit)")
            }
        }
    }

    @Test func pauseResumeAndTheWorkersAreReflectedInTheQueue() async throws {
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        try await withServe(queue: queue) { serve in
            try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 3) { workers in
                let path = "/v1/queues/\(queue.name)"
                let paused = try await serve.request("POST", "\(path)/pause")
                #expect(paused.status == 204 && paused.body.isEmpty, "\(paused)")
                #expect(try await serve.request("GET", path).json["isPaused"] as? Bool == true)
                let resumed = try await serve.request("POST", "\(path)/resume")
                #expect(resumed.status == 204, "\(resumed)")
                #expect(try await serve.request("GET", path).json["isPaused"] as? Bool == false)

                let listed = await eventuallyValue { () async -> [[String: Any]]? in
                    let answer = try? await serve.request("GET", "\(path)/workers", token: ServeProcess.readToken)
                    let workers = (try? JSONSerialization.jsonObject(with: Data((answer?.body ?? "").utf8))) as? [[String: Any]]
                    return workers?.isEmpty == false ? workers : nil
                }
                let record = try #require(listed?.first, "no worker listed")
                #expect(listed?.count == 1)
                #expect(record["pid"] as? Int == Int(workers[0].processIdentifier) && record["concurrency"] as? Int == 3, "\(record)")
                #expect(try await serve.request("GET", path).json["workers"] as? Int == 1)
            }
        }
    }
}
