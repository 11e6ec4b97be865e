import Foundation
import Scheduler
import Testing
import TestSupport

/// Operators in any language: a JSON control document RPUSHed with redis-cli
/// onto `warmer:{Q}:commands` cancels, re-prioritises, retries or purges
/// dead letters, pauses and resumes, exactly as the CLI does, applied by real
/// `warmer worker` processes; the outcome is read back with redis-cli alone.
@Suite(.serialized)
struct ControlDocumentTests {
    @Test func cancellingABatchFromRedisCliStopsItsJobsWhileEverySlotIsBusyAndTheQueuePausedButSharedWorkGoesOn() async throws {
        // Given one worker with three slots, and three images from an origin
        // that holds every download until the test releases it (so the
        // downloads run for as long as the test needs, however slow the machine)
        let queue = try QueueProbe()
        let cli = RedisCLIOperator(queue: queue)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try Data(contentsOf: Origin.makeImage(TestEnvironment.uniqueName("ctl-cancel"), width: 32, height: 24))
        let origin = try GatedOrigin(body: image)
        defer { origin.close() }
        let urls = (0..<3).map { origin.url("/ctl-cancel/\($0).jpg") }
        let kept = urls[0]

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 3) { workers in
            // …batch X of the three, and batch Y that needs X's first image too
            let x = try await queue.enqueue(urls)
            let y = try await queue.enqueue([kept])
            // …all three downloading, so every slot is busy
            let running = await eventually(timeout: .seconds(30)) { origin.held.count == 3 }
            try #require(running, "the downloads did not all start:\n\(workers.logs)")
            let jobs = try await cli.liveJobs(ofBatch: x)
            let keptJob = try #require(jobs[kept.absoluteString])

            // When the queue is paused with a control document
            try await cli.push([try jsonDocument(["v": 1, "op": "pause", "id": "pause-1"])])
            let paused = try await cli.outcome(of: "pause-1")
            #expect(paused["type"] == "controlApplied" && paused["op"] == "pause", "\(paused)")
            #expect(try await cli.field(cli.key("config"), "paused") == "1")

            // …and then batch X is cancelled with another
            try await cli.push([try jsonDocument(["v": 1, "op": "cancel", "batch": x, "id": "cancel-x"])])

            // Then the outcome names the two jobs only X needed, both running and told to stop
            let outcome = try await cli.outcome(of: "cancel-x")
            #expect(outcome["type"] == "controlApplied" && outcome["op"] == "cancel" && outcome["batch"] == x, "\(outcome)")
            #expect(outcome["cancelled"] == "2" && outcome["aborted"] == "2" && outcome["notFound"] == "", "\(outcome)")

            // …X is finished with its three URLs cancelled, and cancelledAt set
            let statusX = try await queue.waitUntilFinished(batch: x)
            #expect(statusX.cancelled == 3 && statusX.completed == 0 && statusX.failed == 0, "\(statusX)")
            let batchX = try await cli.hash(cli.key("batch:\(x)"))
            #expect(batchX["cancelled"] == "3" && batchX["cancelledAt"] != nil, "\(batchX)")
            for (url, id) in jobs where id != keptJob {
                let job = try await cli.hash(cli.key("job:\(id)"))
                let ended = await eventually { (try? await cli.field(cli.key("job:\(id)"), "state")) == "cancelled" }
                #expect(ended, "\(url): \(job)")
            }

            // …and the job Y still needs goes on, paused queue or not, and completes for Y
            // once its download ends
            origin.release(Set(origin.held.filter { $0.path == kept.path }.map(\.id)))
            let statusY = try await queue.waitUntilFinished(batch: y, timeout: .seconds(60))
            #expect(statusY.completed == 1 && statusY.total == 1, "\(statusY)\n\(workers.logs)")
            #expect(try await cli.field(cli.key("job:\(keptJob)"), "state") == "completed")

            // …the worker logged both documents
            #expect(workers[0].log.contains("control document applied"), "\(workers.logs)")

            // When resumed with a third document
            try await cli.push([try jsonDocument(["v": 1, "op": "resume", "id": "resume-1"])])
            let resumed = try await cli.outcome(of: "resume-1")
            #expect(resumed["type"] == "controlApplied" && resumed["op"] == "resume", "\(resumed)")
            #expect(try await cli.field(cli.key("config"), "paused") == nil)
        }
    }

    @Test func cancellingJobsByIdEndsThemInEveryBatchAndNamesUnknownIds() async throws {
        // Given a worker, a paused queue, batch A of three images and batch B sharing A's first
        let queue = try QueueProbe()
        let cli = RedisCLIOperator(queue: queue)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("ctl-jobs", count: 3)

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            try await cli.push([try jsonDocument(["v": 1, "op": "pause", "id": "p"])])
            _ = try await cli.outcome(of: "p")
            let a = try await queue.enqueue(images.map(\.url))
            let b = try await queue.enqueue([images[0].url])
            let jobs = try await cli.liveJobs(ofBatch: a)
            let shared = try #require(jobs[images[0].url.absoluteString])
            let second = try #require(jobs[images[1].url.absoluteString])

            // When the shared job and the second one are cancelled by id, with an id that is no job
            try await cli.push([try jsonDocument([
                "v": 1, "op": "cancel", "jobs": [shared, second, "987654321"], "id": "cancel-jobs",
            ])])

            // Then both end, in every batch they served, and the unknown id is named
            let outcome = try await cli.outcome(of: "cancel-jobs")
            #expect(outcome["type"] == "controlApplied" && outcome["op"] == "cancel", "\(outcome)")
            #expect(outcome["cancelled"] == "2" && outcome["aborted"] == "0" && outcome["notFound"] == "987654321",
                    "\(outcome)")
            #expect(try await cli.field(cli.key("job:\(shared)"), "state") == "cancelled")
            #expect(try await cli.field(cli.key("job:\(second)"), "state") == "cancelled")
            let batchB = try await cli.hash(cli.key("batch:\(b)"))
            #expect(batchB["cancelled"] == "1" && batchB["finishedAt"] != nil, "\(batchB)")

            // …and once resumed, A's third job alone runs
            try await cli.push([try jsonDocument(["v": 1, "op": "resume"])])
            let statusA = try await queue.waitUntilFinished(batch: a)
            #expect(statusA.completed == 1 && statusA.cancelled == 2 && statusA.total == 3, "\(statusA)\n\(workers.logs)")
        }
    }

    @Test func priorityDocumentsChangeABatchsAndAJobsPriorityAndTheClaimOrderFollows() async throws {
        // Given a worker with one slot, a paused queue, batch L (low) and then batch N (normal)
        let queue = try QueueProbe()
        let cli = RedisCLIOperator(queue: queue)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let lowImages = try await Origin.makeImages("ctl-low", count: 3)
        let normalImages = try await Origin.makeImages("ctl-normal", count: 3)

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1) { workers in
            try await cli.push([try jsonDocument(["v": 1, "op": "pause", "id": "p"])])
            _ = try await cli.outcome(of: "p")
            let low = try await queue.enqueue(lowImages.map(\.url), priority: "low")
            let normal = try await queue.enqueue(normalImages.map(\.url), priority: "normal")
            let normalJobs = try await cli.liveJobs(ofBatch: normal)
            let raised = try #require(normalJobs[normalImages[2].url.absoluteString])

            // When L goes to veryHigh, and N's last job alone to high
            try await cli.push([
                try jsonDocument(["v": 1, "op": "priority", "batch": low, "priority": "veryHigh", "id": "prio-batch"]),
                try jsonDocument(["v": 1, "op": "priority", "jobs": [raised], "priority": "high", "id": "prio-job"]),
            ])

            // Then the outcomes count the jobs changed
            let batchOutcome = try await cli.outcome(of: "prio-batch")
            #expect(batchOutcome["type"] == "controlApplied" && batchOutcome["updated"] == "3"
                    && batchOutcome["priority"] == "veryHigh" && batchOutcome["batch"] == low, "\(batchOutcome)")
            let jobOutcome = try await cli.outcome(of: "prio-job")
            #expect(jobOutcome["updated"] == "1" && jobOutcome["notFound"] == "", "\(jobOutcome)")

            // …the batch's and the jobs' priority fields say so
            #expect(try await cli.field(cli.key("batch:\(low)"), "priority") == "veryHigh")
            for id in try await cli.liveJobs(ofBatch: low).values {
                #expect(try await cli.field(cli.key("job:\(id)"), "priority") == "veryHigh")
            }
            #expect(try await cli.field(cli.key("job:\(raised)"), "priority") == "high")

            // …and once resumed, the jobs are claimed in that order: L's three, N's raised one, N's others
            try await cli.push([try jsonDocument(["v": 1, "op": "resume"])])
            _ = try await queue.waitUntilFinished(batch: low)
            _ = try await queue.waitUntilFinished(batch: normal)
            let started = try await cli.queueEvents().filter { $0["type"] == "started" }.compactMap { $0["url"] }
            let expected = lowImages.map(\.url.absoluteString) + [normalImages[2].url.absoluteString]
                + normalImages.prefix(2).map(\.url.absoluteString)
            #expect(started == expected, "\(workers.logs)")
        }
    }

    @Test func deadLettersAreRetriedAndPurgedByIdAndAllAndUnknownIdsAreNamed() async throws {
        // Given a worker and a batch of four URLs the origin does not have yet: four dead letters
        let queue = try QueueProbe()
        let cli = RedisCLIOperator(queue: queue)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let names = (0..<4).map { _ in TestEnvironment.uniqueName("ctl-dead") }
        let urls = try names.map { try Origin.url(path: "\($0).jpg") }

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            let batch = try await queue.enqueue(urls)
            let failed = try await queue.waitUntilFinished(batch: batch)
            try #require(failed.failed == 4, "\(failed)")
            let dead = try await cli.lines(["ZRANGE", cli.key("dead"), "0", "-1"])
            try #require(dead.count == 4, "\(dead)")
            var job: [String: String] = [:]
            for id in dead { job[try #require(try await cli.field(cli.key("job:\(id)"), "url"))] = id }
            let ids = try urls.map { try #require(job[$0.absoluteString]) }
            // …the first two images now exist
            try Origin.makeImage(names[0])
            try Origin.makeImage(names[1])

            // When the first is retried by id, beside an id that is no dead letter
            try await cli.push([try jsonDocument(["v": 1, "op": "deadRetry", "ids": [ids[0], "doc-987654321"], "id": "retry-one"])])

            // Then it is retried, the unknown id named, and it completes in its reopened batch
            let retryOne = try await cli.outcome(of: "retry-one")
            #expect(retryOne["type"] == "controlApplied" && retryOne["retried"] == "1"
                    && retryOne["notFound"] == "doc-987654321", "\(retryOne)")
            let afterOne = await eventually { (try? await cli.field(cli.key("job:\(ids[0])"), "state")) == "completed" }
            #expect(afterOne, "\(workers.logs)")
            let statusOne = try await queue.waitUntilFinished(batch: batch)
            #expect(statusOne.completed == 1 && statusOne.failed == 3, "\(statusOne)")

            // When all are retried
            try await cli.push([try jsonDocument(["v": 1, "op": "deadRetry", "all": true, "id": "retry-all"])])

            // Then the three left are retried once each: the second completes, the two others fail again
            let retryAll = try await cli.outcome(of: "retry-all")
            #expect(retryAll["retried"] == "3" && retryAll["notFound"] == "", "\(retryAll)")
            let settled = await eventually(timeout: .seconds(30)) {
                guard let status = try? await queue.queue.status(ofBatch: batch) else { return false }
                return status.isFinished && status.completed == 2 && status.failed == 2
            }
            let statusAll = (try? await queue.queue.status(ofBatch: batch)).map { "\($0)" } ?? ""
            #expect(settled, "\(statusAll)\n\(workers.logs)")
            #expect(try await cli.lines(["ZRANGE", cli.key("dead"), "0", "-1"]).sorted() == [ids[2], ids[3]].sorted())

            // When the third is purged by id, then all the others
            try await cli.push([try jsonDocument(["v": 1, "op": "deadPurge", "ids": [ids[2]], "id": "purge-one"])])
            let purgeOne = try await cli.outcome(of: "purge-one")
            #expect(purgeOne["purged"] == "1" && purgeOne["notFound"] == "", "\(purgeOne)")
            #expect(try await cli.lines(["EXISTS", cli.key("job:\(ids[2])")]) == ["0"])
            try await cli.push([try jsonDocument(["v": 1, "op": "deadPurge", "all": true, "id": "purge-all"])])
            let purgeAll = try await cli.outcome(of: "purge-all")

            // Then the dead-letter set is empty
            #expect(purgeAll["purged"] == "1", "\(purgeAll)")
            #expect(try await cli.lines(["ZCARD", cli.key("dead")]) == ["0"])
        }
    }

    @Test func invalidControlDocumentsAreDeadLetteredWithTheirReasonAndNothingElseHappens() async throws {
        // Given a worker and a finished batch
        let queue = try QueueProbe()
        let cli = RedisCLIOperator(queue: queue)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("ctl-invalid", count: 1)

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            let batch = try await queue.enqueue(images.map(\.url))
            _ = try await queue.waitUntilFinished(batch: batch)

            // When documents that break the rules are pushed (each would change something if applied)
            let bad: [(id: String, document: String, code: String, reason: String)] = [
                ("string-version", #"{"v":"1","op":"pause","id":"string-version"}"#, "invalid_document", #""v""#),
                ("no-op", #"{"v":1,"id":"no-op"}"#, "invalid_document", #""op""#),
                ("unknown-op", #"{"v":1,"op":"explode","id":"unknown-op"}"#, "invalid_document", #""op""#),
                ("both", #"{"v":1,"op":"cancel","batch":"\#(batch)","jobs":["1"],"id":"both"}"#, "invalid_document", "not both"),
                ("bad-batch", #"{"v":1,"op":"cancel","batch":"a b","id":"bad-batch"}"#, "invalid_document", #""batch""#),
                ("bad-job", #"{"v":1,"op":"cancel","jobs":["12a"],"id":"bad-job"}"#, "invalid_document", "jobs[0]"),
                ("bad-priority", #"{"v":1,"op":"priority","batch":"\#(batch)","priority":"urgent","id":"bad-priority"}"#,
                 "invalid_document", #""priority""#),
                ("neither", #"{"v":1,"op":"deadPurge","id":"neither"}"#, "invalid_document", #""all""#),
                ("bad-dead-id", #"{"v":1,"op":"deadRetry","ids":["doc-x"],"id":"bad-dead-id"}"#, "invalid_document", "ids[0]"),
            ]
            try await cli.push(["{not json"] + bad.map(\.document))

            // Then each is dead-lettered with its reason and a deadLettered event with the caller's id
            var deadLetters: [String: String] = [:]
            for entry in bad {
                let event = try await cli.outcome(of: entry.id)
                #expect(event["type"] == "deadLettered" && event["error"] == entry.code, "\(entry.id): \(event)")
                #expect(event["message"]?.contains(entry.reason) == true, "\(entry.id): \(event)")
                let id = try #require(event["job"])
                deadLetters[entry.id] = id
                let letter = try await cli.hash(cli.key("job:\(id)"))
                #expect(letter["kind"] == "control" && letter["state"] == "dead" && letter["document"] == entry.document,
                        "\(entry.id): \(letter)")
                #expect(try await cli.lines(["ZSCORE", cli.key("dead"), id]).first?.isEmpty == false, "\(entry.id)")
            }
            let malformed = await eventually {
                ((try? await cli.queueEvents()) ?? []).contains { $0["type"] == "deadLettered" && $0["error"] == "malformed_document" }
            }
            #expect(malformed)

            // …and nothing else happened: not paused, the batch neither cancelled nor re-prioritised
            #expect(try await cli.field(cli.key("config"), "paused") == nil)
            let hash = try await cli.hash(cli.key("batch:\(batch)"))
            #expect(hash["cancelledAt"] == nil && hash["priority"] == "normal" && hash["cancelled"] == "0", "\(hash)")
            #expect(try await cli.lines(["LLEN", cli.key("intake")]).first.map { Int($0) ?? -1 } ?? -1 <= 1)

            // When a valid document with a field it does not know follows, the worker applies it
            try await cli.push([#"{"v":1,"op":"pause","id":"after","comment":"unknown fields are ignored"}"#])
            let after = try await cli.outcome(of: "after")
            #expect(after["type"] == "controlApplied", "\(after)")
            #expect(try await cli.field(cli.key("config"), "paused") == "1")

            // When a dead-lettered control document is retried, it goes back to the commands list (not the intake)
            let retried = try #require(deadLetters["unknown-op"])
            try await cli.push([try jsonDocument(["v": 1, "op": "deadRetry", "ids": [retried], "id": "retry-bad"])])
            #expect(try await cli.outcome(of: "retry-bad")["retried"] == "1")
            let again = await eventually {
                ((try? await cli.queueEvents()) ?? []).filter { $0["id"] == "unknown-op" && $0["type"] == "deadLettered" }.count == 2
            }
            #expect(again, "\(workers.logs)")
            #expect(workers[0].log.contains("control document dead-lettered"), "\(workers.logs)")
        }
    }

    @Test func aLargeCancelInterruptedBetweenStepsIsFinishedByAnotherWorkerExactlyOnce() async throws {
        // Given a paused queue of 5,000 queued jobs in one batch, and a cancel document whose
        // first step (1,000 jobs) a worker applied before it was killed: its progress in Redis
        let queue = try QueueProbe()
        let cli = RedisCLIOperator(queue: queue)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        try await queue.queue.pause()
        let batch = TestEnvironment.uniqueName("big")
        let unreachable = (0..<5_000).map { "http://127.0.0.1:9/big-\($0).jpg" }
        _ = try await queue.queue.enqueue(urls: unreachable, batchID: batch)
        try await cli.push([try jsonDocument(["v": 1, "op": "cancel", "batch": batch, "id": "big-cancel"])])
        var chunks = JobQueue.ControlDocumentChunks()
        chunks.batchJobs = 1_000
        let step = try await queue.queue.applyControlDocumentStep(chunks: chunks)
        #expect(step == .inProgress(operation: "cancel", id: "big-cancel"))
        let applying = try await cli.hash(cli.key("commands:applying"))
        try #require(applying["cancelled"] == "1000" && applying["document"]?.contains("big-cancel") == true, "\(applying)")
        try #require(try await cli.field(cli.key("batch:\(batch)"), "cancelled") == "1000")

        // When a worker starts
        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            // Then it finishes the document: one outcome counting all 5,000 jobs
            let outcome = try await cli.outcome(of: "big-cancel", timeout: .seconds(60))
            #expect(outcome["type"] == "controlApplied" && outcome["cancelled"] == "5000" && outcome["aborted"] == "0",
                    "\(outcome)\n\(workers.logs)")
            let status = try await queue.waitUntilFinished(batch: batch)
            #expect(status.cancelled == 5_000 && status.total == 5_000, "\(status)")
            let events = try await cli.queueEvents()
            #expect(events.filter { $0["id"] == "big-cancel" }.count == 1)
            #expect(events.filter { $0["type"] == "cancelled" }.count == 5_000)
            #expect(try await cli.lines(["EXISTS", cli.key("commands:applying")]) == ["0"])
            #expect(try await cli.lines(["ZCARD", cli.key("queue")]) == ["0"])
        }
    }

    @Test func aWorkerKilledWithSIGKILLWhileApplyingALargeCancelLosesNothingAndNothingIsAppliedTwice() async throws {
        // Given a worker, a paused queue and 20,000 queued jobs in one batch (ten steps of 2,000)
        let queue = try QueueProbe()
        let cli = RedisCLIOperator(queue: queue)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        try await queue.queue.pause()
        let batch = TestEnvironment.uniqueName("huge")
        _ = try await queue.queue.enqueue(urls: (0..<20_000).map { "http://127.0.0.1:9/huge-\($0).jpg" }, batchID: batch)
        let applying = cli.key("commands:applying")

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1) { workers in
            // When a cancel document is pushed and the worker is killed as soon as it is part-way through
            try await cli.push([try jsonDocument(["v": 1, "op": "cancel", "batch": batch, "id": "huge-cancel"])])
            let started = await eventually(timeout: .seconds(30), pollingEvery: .milliseconds(2)) {
                (try? await queue.send(["EXISTS", applying]).integer) == 1
            }
            try #require(started, "the document was never in progress:\n\(workers.logs)")
            await workers[0].kill()
            let status = try await queue.queue.status(ofBatch: batch)
            try #require(try await queue.send(["EXISTS", applying]).integer == 1,
                         "the worker finished the document before the kill landed: \(status)")
            #expect(status.cancelled > 0 && status.cancelled < 20_000, "\(status)")
        }

        // Then the next worker finishes it: every job cancelled once, one outcome counting all 20,000
        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1) { workers in
            let outcome = try await cli.outcome(of: "huge-cancel", timeout: .seconds(60))
            #expect(outcome["type"] == "controlApplied" && outcome["cancelled"] == "20000", "\(outcome)\n\(workers.logs)")
            let status = try await queue.waitUntilFinished(batch: batch)
            #expect(status.cancelled == 20_000 && status.total == 20_000, "\(status)")
            #expect(try await queue.send(["XLEN", queue.queue.keys.batchEvents(batch)]).integer == 20_001)
            let outcomes = try await cli.queueEvents().filter { $0["id"] == "huge-cancel" }
            #expect(outcomes.count == 1, "\(outcomes)")
        }
    }

    @Test func aDocumentAWorkerTookAsItWokeIsAppliedOnceByAnyWorker() async throws {
        // Given what a worker that dies between its BLMOVE and its step leaves: a document in commands:pending
        let queue = try QueueProbe()
        let cli = RedisCLIOperator(queue: queue)
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let document = try jsonDocument(["v": 1, "op": "pause", "id": "orphan"])
        _ = try await cli.lines(["RPUSH", cli.key("commands:pending"), document])

        // When a worker starts
        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 1) { workers in
            // Then it applies the document, once
            let outcome = try await cli.outcome(of: "orphan")
            #expect(outcome["type"] == "controlApplied" && outcome["op"] == "pause", "\(outcome)")
            #expect(try await cli.field(cli.key("config"), "paused") == "1")
            #expect(try await cli.lines(["LLEN", cli.key("commands:pending")]) == ["0"])
            let events = try await cli.queueEvents().filter { $0["id"] == "orphan" }
            #expect(events.count == 1, "\(events)\n\(workers.logs)")
        }
    }
}
