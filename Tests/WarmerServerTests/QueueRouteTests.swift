import Foundation
import NIOCore
import RedisKit
import Scheduler
import Testing
import TestSupport
@testable import WarmerServer

/// The routes that read or change a queue, in-process (router mode) over the
/// test Redis of scripts/test.sh, each test on a queue of its own: batches
/// posted and read, the queue's state and listings, job records, dead
/// letters, pause and resume. The work a worker would do is done by the
/// test through `JobQueue` (claim, finish), so every state is arranged,
/// not waited for.
@Suite struct QueueRouteTests {
    static let worker = "in-process-test-worker"

    /// An intake document of `urls`, naming `batch` when given.
    static func document(_ urls: [String], batch: String? = nil, extra: String = "") -> String {
        let list = urls.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"v":1,\#(batch.map { "\"batch\":\"\($0)\"," } ?? "")\#(extra)"urls":[\#(list)]}"#
    }

    /// `count` URLs no test shares.
    static func urls(_ count: Int) -> [String] {
        let label = UUID().uuidString.prefix(8)
        return (0..<count).map { "https://images.example/\(label)-\($0).jpg" }
    }

    @Test func aPostedBatchIsCreatedReplayedAndReadBack() async throws {
        let fixture = try InProcessServer(redis: true)
        defer { fixture.remove() }
        let name = TestEnvironment.uniqueName("serve")
        let queue = try fixture.queue(name)
        try await fixture.routed { client in
            let batches = "/v1/queues/\(name)/batches"
            let body = Self.document(Self.urls(3), batch: "posted")
            let created = try await client.send(.post, batches, body: body)
            #expect(created.status == .created, "\(created)")
            #expect(created["Location"] == "\(batches)/posted", "\(created)")
            #expect(created.json["batch"] as? String == "posted" && created.json["newJobs"] as? Int == 3, "\(created)")
            #expect(created.json["replayed"] as? Bool == false && (created.json["status"] as? [String: Any])?["total"] as? Int == 3)

            // The same bytes again: the same batch, nothing enqueued
            let replayed = try await client.send(.post, batches, body: body)
            #expect(replayed.status == .ok && replayed.json["replayed"] as? Bool == true && replayed.json["newJobs"] as? Int == 0,
                    "\(replayed)")
            #expect(replayed["Location"] == created["Location"])
            #expect(try await queue.queuedCount() == 3)

            // Its status as the workers move it: one completed, one failed
            let jobs = try await queue.claim(upTo: 2, worker: Self.worker)
            try #require(jobs.count == 2)
            try await queue.finish(jobs[0], outcome: .completed(source: "network", bytes: 10), worker: Self.worker)
            try await queue.finish(jobs[1], outcome: .failed(code: "http_404", message: "gone"), worker: Self.worker)
            let status = try await client.send(.get, "\(batches)/posted", token: InProcessServer.readToken)
            #expect(status.status == .ok, "\(status)")
            #expect(status.json["total"] as? Int == 3 && status.json["completed"] as? Int == 1 && status.json["failed"] as? Int == 1,
                    "\(status)")
            #expect(status.json["pending"] as? Int == 1 && status.json["isFinished"] as? Bool == false, "\(status)")
            let failures = try await client.send(.get, "\(batches)/posted/failures", token: InProcessServer.readToken)
            #expect(failures.status == .ok && failures.text.contains("http_404") && failures.text.contains(jobs[1].url), "\(failures)")

            // Listed among the queue's batches; an unnamed batch gets an id of its own
            let unnamed = try await client.send(.post, batches, body: Self.document(Self.urls(1)))
            let id = try #require(unnamed.json["batch"] as? String)
            #expect(unnamed.status == .created && unnamed["Location"] == "\(batches)/\(id)", "\(unnamed)")
            let listed = try await client.send(.get, batches, token: InProcessServer.readToken)
            let ids = (listed.json["batches"] as? [[String: Any]])?.compactMap { $0["batch"] as? String ?? $0["id"] as? String }
            #expect(listed.status == .ok && Set(ids ?? []) == ["posted", id], "\(listed)")
        }
    }

    @Test func refusedDocumentsAreProblemsWithTheIntakeListsTexts() async throws {
        let fixture = try InProcessServer(redis: true)
        defer { fixture.remove() }
        let name = TestEnvironment.uniqueName("serve")
        let queue = try fixture.queue(name)
        try await fixture.routed { client in
            let path = "/v1/queues/\(name)/batches"
            let malformed = try await client.send(.post, path, body: "{not json")
            #expect(malformed.status == .badRequest && malformed.code == "malformed_document", "\(malformed)")
            #expect(malformed["Content-Type"] == "application/problem+json", "\(malformed)")
            #expect((malformed.json["detail"] as? String)?.hasPrefix("not JSON") == true, "\(malformed)")
            let cases: [(String, String)] = [
                (#"{"v":1,"urls":[]}"#, #""urls" must be a non-empty array of strings"#),
                (#"{"v":2,"urls":["https://a.example/x"]}"#, #"unsupported or missing version "v" (expected the number 1)"#),
                (#"{"v":1,"priority":"urgent","urls":["https://a.example/x"]}"#, #"unknown "priority""#),
                (#"{"v":1,"timeout":0,"urls":["https://a.example/x"]}"#, #""timeout" must be an integer number of seconds from 1 to 86400"#),
            ]
            for (body, detail) in cases {
                let refused = try await client.send(.post, path, body: body)
                #expect(refused.status == .unprocessableContent && refused.code == "invalid_document", "\(refused)")
                #expect(refused.json["detail"] as? String == detail, "\(refused)")
                #expect(refused.json["type"] as? String == "urn:warmer:problem:invalid_document", "\(refused)")
            }
            let badSpec = try await client.send(.post, path, body: Self.document(Self.urls(1), extra: #""destination":"processed","processing":"thumbnail=huge","#))
            #expect(badSpec.status == .unprocessableContent && badSpec.code == "invalid_document", "\(badSpec)")
            #expect((badSpec.json["detail"] as? String)?.hasPrefix(#""processing" is not a valid processing spec"#) == true, "\(badSpec)")
            #expect(try await queue.queuedCount() == 0)
            #expect(try await queue.deadLetterCount() == 0)
            let missing = try await client.send(.get, "\(path)/no-such-batch")
            #expect(missing.status == .notFound && missing.code == "batch_not_found", "\(missing)")
            let badID = try await client.send(.get, "\(path)/bad%20id")
            #expect(badID.status == .badRequest && badID.code == "bad_request", "\(badID)")
        }
    }

    @Test func theQueueIsPausedAndResumedAndItsStateRead() async throws {
        let fixture = try InProcessServer(redis: true)
        defer { fixture.remove() }
        let name = TestEnvironment.uniqueName("serve")
        let queue = try fixture.queue(name)
        try await fixture.routed { client in
            let path = "/v1/queues/\(name)"
            _ = try await client.send(.post, "\(path)/batches", body: Self.document(Self.urls(2)))
            let state = try await client.send(.get, path, token: InProcessServer.readToken)
            #expect(state.status == .ok && state.json["queued"] as? Int == 2 && state.json["isPaused"] as? Bool == false, "\(state)")
            #expect(state.json["queue"] as? String == name, "\(state)")

            let paused = try await client.send(.post, "\(path)/pause")
            #expect(paused.status == .noContent && paused.body.readableBytes == 0, "\(paused)")
            #expect(try await client.send(.get, path).json["isPaused"] as? Bool == true)
            #expect(try await queue.claim(upTo: 1, worker: Self.worker).isEmpty, "a paused queue handed out a job")
            let resumed = try await client.send(.post, "\(path)/resume")
            #expect(resumed.status == .noContent, "\(resumed)")
            #expect(try await client.send(.get, path).json["isPaused"] as? Bool == false)
            #expect(try await queue.claim(upTo: 1, worker: Self.worker).count == 1)

            let workers = try await client.send(.get, "\(path)/workers", token: InProcessServer.readToken)
            #expect(workers.status == .ok && workers.text.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(workers)")
            let throughput = try await client.send(.get, "\(path)/throughput?seconds=60", token: InProcessServer.readToken)
            #expect(throughput.status == .ok, "\(throughput)")
            let badSeconds = try await client.send(.get, "\(path)/throughput?seconds=0", token: InProcessServer.readToken)
            #expect(badSeconds.status == .badRequest && badSeconds.code == "bad_request", "\(badSeconds)")
        }
    }

    @Test func aJobIsReadReprioritisedAndCancelledInEveryBatch() async throws {
        let fixture = try InProcessServer(redis: true)
        defer { fixture.remove() }
        let name = TestEnvironment.uniqueName("serve")
        let queue = try fixture.queue(name)
        try await fixture.routed { client in
            let url = Self.urls(1)
            _ = try await client.send(.post, "/v1/queues/\(name)/batches", body: Self.document(url, batch: "one"))
            _ = try await client.send(.post, "/v1/queues/\(name)/batches", body: Self.document(url, batch: "two"))
            let ids = try await queue.client.send(["SMEMBERS", queue.keys.batchJobs("one")]).array.compactMap(\.string)
            let job = try #require(ids.first)
            let jobs = "/v1/queues/\(name)/jobs"

            let record = try await client.send(.get, "\(jobs)/\(job)", token: InProcessServer.readToken)
            #expect(record.status == .ok && record.json["id"] as? String == job && record.json["state"] as? String == "queued", "\(record)")
            #expect(record.json["url"] as? String == url[0] && Set(record.json["batches"] as? [String] ?? []) == ["one", "two"], "\(record)")
            #expect(record.json["enqueuedAtUTC"] != nil || record.text.contains("enqueuedAt"), "\(record)")

            let changed = try await client.send(.patch, "\(jobs)/\(job)", body: #"{"priority":"low"}"#)
            #expect(changed.status == .ok && changed.json["changedJobs"] as? Int == 1, "\(changed)")
            #expect(try await client.send(.get, "\(jobs)/\(job)").json["priority"] as? String == "low")
            let cancelled = try await client.send(.delete, "\(jobs)/\(job)")
            #expect(cancelled.status == .ok && cancelled.json["cancelledJobs"] as? Int == 1, "\(cancelled)")
            for batch in ["one", "two"] {
                let status = try await client.send(.get, "/v1/queues/\(name)/batches/\(batch)")
                #expect(status.json["cancelled"] as? Int == 1 && status.json["isFinished"] as? Bool == true, "\(status)")
            }
            let unknown = try await client.send(.get, "\(jobs)/999999999", token: InProcessServer.readToken)
            #expect(unknown.status == .notFound && unknown.code == "job_not_found", "\(unknown)")
            let notANumber = try await client.send(.delete, "\(jobs)/abc")
            #expect(notANumber.status == .badRequest && notANumber.code == "bad_request", "\(notANumber)")
            let notJSON = try await client.send(.patch, "\(jobs)/\(job)", body: "priority=low")
            #expect(notJSON.status == .badRequest && notJSON.code == "bad_request", "\(notJSON)")
        }
    }

    @Test func aBatchIsReprioritisedAndCancelledKeepingWorkAnotherBatchNeeds() async throws {
        let fixture = try InProcessServer(redis: true)
        defer { fixture.remove() }
        let name = TestEnvironment.uniqueName("serve")
        try await fixture.routed { client in
            let batches = "/v1/queues/\(name)/batches"
            let urls = Self.urls(2)
            _ = try await client.send(.post, batches, body: Self.document(urls, batch: "cancelled"))
            _ = try await client.send(.post, batches, body: Self.document([urls[1]], batch: "kept"))
            let changed = try await client.send(.patch, "\(batches)/cancelled", body: #"{"priority":"veryHigh"}"#)
            #expect(changed.status == .ok && changed.json["changedJobs"] as? Int == 2, "\(changed)")
            let badPriority = try await client.send(.patch, "\(batches)/cancelled", body: #"{"priority":"urgent"}"#)
            #expect(badPriority.status == .badRequest && badPriority.code == "bad_request", "\(badPriority)")
            let cancelled = try await client.send(.delete, "\(batches)/cancelled")
            // Only the job no other batch needs is cancelled.
            #expect(cancelled.status == .ok && cancelled.json["cancelledJobs"] as? Int == 1, "\(cancelled)")
            #expect(cancelled.json["abortedRunningJobs"] as? Int == 0, "\(cancelled)")
            let gone = try await client.send(.get, "\(batches)/cancelled")
            #expect(gone.json["cancelled"] as? Int == 2 && gone.json["isFinished"] as? Bool == true, "\(gone)")
            let kept = try await client.send(.get, "\(batches)/kept")
            #expect(kept.json["pending"] as? Int == 1 && kept.json["cancelled"] as? Int == 0, "\(kept)")
            #expect(try await client.send(.get, "/v1/queues/\(name)").json["queued"] as? Int == 1)
        }
    }

    @Test func deadLettersAreListedRetriedAndPurged() async throws {
        let fixture = try InProcessServer(redis: true)
        defer { fixture.remove() }
        let name = TestEnvironment.uniqueName("serve")
        let queue = try fixture.queue(name)
        try await fixture.routed { client in
            let dead = "/v1/queues/\(name)/dead"
            let urls = Self.urls(2)
            _ = try await client.send(.post, "/v1/queues/\(name)/batches", body: Self.document(urls, batch: "lost"))
            for job in try await queue.claim(upTo: 2, worker: Self.worker) {
                try await queue.finish(job, outcome: .failed(code: "http_404", message: "gone"), worker: Self.worker)
            }
            let listed = try await client.send(.get, "\(dead)?limit=10", token: InProcessServer.readToken)
            #expect(listed.status == .ok && listed.json["count"] as? Int == 2, "\(listed)")
            let letters = try #require(listed.json["deadLetters"] as? [[String: Any]])
            #expect(Set(letters.compactMap { $0["url"] as? String }) == Set(urls), "\(listed)")
            #expect(letters.allSatisfy { $0["error"] as? String == "http_404" && $0["kind"] as? String == "job" }, "\(listed)")
            let first = try #require(letters.first?["id"] as? String)

            let retried = try await client.send(.post, dead, body: #"{"ids":["\#(first)"]}"#)
            #expect(retried.status == .ok && retried.json["count"] as? Int == 1, "\(retried)")
            #expect(try await queue.queuedCount() == 1)
            #expect(try await queue.deadLetterCount() == 1)
            let both = try await client.send(.post, dead, body: #"{"ids":["x"],"all":true}"#)
            #expect(both.status == .badRequest && both.code == "bad_request", "\(both)")
            let badLimit = try await client.send(.get, "\(dead)?limit=0")
            #expect(badLimit.status == .badRequest && badLimit.code == "bad_request", "\(badLimit)")
            let purged = try await client.send(.delete, "\(dead)?all=true")
            #expect(purged.status == .ok && purged.json["count"] as? Int == 1, "\(purged)")
            let empty = try await client.send(.get, dead)
            #expect(empty.json["count"] as? Int == 0 && (empty.json["deadLetters"] as? [Any])?.isEmpty == true, "\(empty)")
        }
    }
}
