import Foundation
import Scheduler
import Testing
import TestSupport

/// The dashboard's reads on the command line: `warmer status --throughput`,
/// `--failures`, `--job` and `warmer batches`.
@Suite(.serialized)
struct ReadCommandTests {
    let worker = "cli-test-worker"

    /// The JSON object or array `result` printed.
    private func json(_ result: CommandResult) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
    }

    @Test func statusThroughputPrintsThePerSecondCountsAsJSON() async throws {
        // Given a queue where 2 jobs completed (10 and 20 bytes) and 1 failed
        let probe = try QueueProbe()
        _ = try await probe.queue.enqueue(urls: (0..<3).map { "https://images.example/t-\($0).jpg" })
        let jobs = try await probe.queue.claim(upTo: 3, worker: worker)
        try #require(jobs.count == 3)
        try await probe.queue.finish(jobs[0], outcome: .completed(source: "network", bytes: 10), worker: worker)
        try await probe.queue.finish(jobs[1], outcome: .completed(source: "disk", bytes: 20), worker: worker)
        try await probe.queue.finish(jobs[2], outcome: .failed(code: "http_404", message: "HTTP 404"), worker: worker)

        // When `status --throughput --seconds 60` runs
        let result = try await warmer(["status", "--throughput", "--seconds", "60"] + probe.redisArguments)

        // Then it prints {"points": [...]}: 60 seconds, oldest first, with those counts
        #expect(result.status == 0, "\(result)")
        let object = try #require(try json(result) as? [String: Any], "\(result)")
        let points = try #require(object["points"] as? [[String: Any]], "\(result)")
        #expect(points.count == 60)
        func total(_ key: String) -> Int { points.compactMap { ($0[key] as? NSNumber)?.intValue }.reduce(0, +) }
        #expect(total("completed") == 2 && total("failed") == 1 && total("bytes") == 30, "\(result)")
        let seconds = points.compactMap { ($0["second"] as? NSNumber)?.int64Value }
        #expect(seconds.count == 60 && zip(seconds, seconds.dropFirst()).allSatisfy { $1 == $0 + 1 })
    }

    @Test func batchesPagesThroughTheBatchesNewestFirstAsJSONAndAsATable() async throws {
        // Given 3 batches
        let probe = try QueueProbe()
        var ids: [String] = []
        for index in 0..<3 { ids.append(try await probe.queue.enqueue(urls: ["https://images.example/p-\(index).jpg"])) }
        let newestFirst = try await probe.send(["ZRANGE", probe.queue.keys.batches, "+inf", "-inf", "BYSCORE", "REV"]).array.compactMap(\.string)
        try #require(Set(newestFirst) == Set(ids))

        // When `batches --json --limit 2` runs, then again with the page's next cursor
        let first = try await warmer(["batches", "--json", "--limit", "2"] + probe.redisArguments)
        #expect(first.status == 0, "\(first)")
        let page = try #require(try json(first) as? [String: Any], "\(first)")
        let next = try #require(page["next"] as? String, "\(first)")
        let second = try await warmer(["batches", "--json", "--limit", "2", "--before", next] + probe.redisArguments)
        let last = try #require(try json(second) as? [String: Any], "\(second)")

        // Then the two pages hold the 3 batches newest first, each with its counters, and the last has no next
        let listed = [page, last].flatMap { ($0["batches"] as? [[String: Any]]) ?? [] }
        #expect(listed.compactMap { $0["id"] as? String } == newestFirst, "\(first) \(second)")
        #expect(listed.allSatisfy { ($0["total"] as? NSNumber)?.intValue == 1 && ($0["pending"] as? NSNumber)?.intValue == 1 })
        #expect(last["next"] is NSNull, "\(second)")

        // When it runs without --json
        let table = try await warmer(["batches"] + probe.redisArguments)

        // Then a header and one line per batch, newest first
        #expect(table.status == 0, "\(table)")
        let lines = table.outputLines
        let titles: [String]? = lines.first?.split(separator: " ", omittingEmptySubsequences: true).map { String($0) }
        let expectedTitles: [String] = [
            "ID", "CREATED", "PRIORITY", "DESTINATION", "TOTAL", "COMPLETED", "FAILED", "CANCELLED", "DEAD", "PENDING", "FINISHED",
        ]
        #expect(titles == expectedTitles)
        let rowIDs: [String] = lines.dropFirst().compactMap { line in line.split(separator: " ").first.map { String($0) } }
        #expect(rowIDs == newestFirst, "\(table)")
        #expect(lines.dropFirst().allSatisfy { $0.contains("normal") && $0.contains("disk") && $0.hasSuffix("no") }, "\(table)")
    }

    @Test func statusFailuresPrintsABatchsFailedJobsWithTheirReasons() async throws {
        // Given a batch whose one job failed and one completed
        let probe = try QueueProbe()
        let batch = try await probe.queue.enqueue(urls: ["https://images.example/f-0.jpg", "https://images.example/f-1.jpg"])
        let jobs = try await probe.queue.claim(upTo: 2, worker: worker)
        try await probe.queue.finish(jobs[0], outcome: .failed(code: "http_404", message: "HTTP 404"), worker: worker)
        try await probe.queue.finish(jobs[1], outcome: .completed(source: "network", bytes: 1), worker: worker)

        // When `status BATCH --failures` runs
        let result = try await warmer(["status"] + probe.redisArguments + [batch, "--failures"])

        // Then it prints a JSON array of the one failure
        #expect(result.status == 0, "\(result)")
        let failures = try #require(try json(result) as? [[String: Any]], "\(result)")
        #expect(failures.count == 1)
        let failure = try #require(failures.first)
        #expect(failure["job"] as? String == jobs[0].id && failure["url"] as? String == jobs[0].url)
        #expect(failure["state"] as? String == "failed" && failure["error"] as? String == "http_404")
        #expect(failure["message"] as? String == "HTTP 404" && failure["at"] is NSNumber, "\(result)")
    }

    @Test func statusJobPrintsAJobsRecordAndFailsForAnUnknownOne() async throws {
        // Given a claimed job
        let probe = try QueueProbe()
        let batch = try await probe.queue.enqueue(urls: ["https://user:secret@images.example/j.jpg"])
        let job = try #require(try await probe.queue.claim(upTo: 1, worker: worker).first)

        // When `status --job ID` runs
        let result = try await warmer(["status", "--job", job.id] + probe.redisArguments)

        // Then it prints the record, the password masked
        #expect(result.status == 0, "\(result)")
        let record = try #require(try json(result) as? [String: Any], "\(result)")
        #expect(record["id"] as? String == job.id && record["state"] as? String == "active")
        #expect(record["url"] as? String == "https://user:***@images.example/j.jpg", "\(result)")
        #expect(record["batches"] as? [String] == [batch] && record["worker"] as? String == worker)
        #expect((record["attempt"] as? NSNumber)?.intValue == 1)
        #expect((record["claimedAtUTC"] as? String)?.hasSuffix("Z") == true, "\(result)")
        #expect(!result.standardOutput.contains("secret"))

        // When it is asked for a job the queue does not hold
        let missing = try await warmer(["status", "--job", "no-such-job"] + probe.redisArguments)

        // Then it fails and says so
        #expect(missing.exited && missing.status != 0, "\(missing)")
        #expect(missing.standardError.contains("No job 'no-such-job'"), "\(missing)")
    }
}
