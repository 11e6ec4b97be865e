import Foundation
import PipelineEngine
import PipelineEngineFakes
import Scheduler
import SchedulerFakes
import Testing
@testable import WarmerWorker

/// How the worker runs a job and reports its end to the queue, over the
/// in-memory queue and a pipeline of fakes. The time limit only bounds a
/// broken build's hang.
@Suite(.timeLimit(.minutes(1))) struct WorkerJobTests {
    @Test func aJobRunsAndFinishesCompletedWithItsProgress() async throws {
        let worker = try WorkerHarness()
        let url = worker.image("a")
        let id = worker.add(url)
        await worker.waitForEnds(of: id)
        try await worker.stop()

        let size = FakeImages.body("a").count
        #expect(worker.ends(of: id).map(\.outcome) == [.completed(source: "network", bytes: size)])
        #expect(worker.source.events.calls == [.init(kind: .progress, jobID: id, fields: ["bytes": "\(size)", "total": "\(size)"])])
        #expect(worker.cache.keys == [url.absoluteString])
        #expect(worker.source.releases.calls.isEmpty)
        #expect(worker.source.leasedJobIDs.isEmpty)
    }

    @Test func aPermanentDownloadFailureFinishesFailedWithoutRetry() async throws {
        let worker = try WorkerHarness()
        let url = URL(string: "http://127.0.0.1:9/fake/missing.png")!
        worker.loader.fail(url, status: 404)
        let id = worker.add(url)
        await worker.waitForEnds(of: id)
        try await worker.stop()

        guard case .failed(let code, _, let isTransient) = worker.ends(of: id).first?.outcome else {
            Issue.record("not failed: \(worker.ends(of: id).map(\.outcome))")
            return
        }
        #expect(code == "http_404")
        #expect(!isTransient)
        #expect(worker.source.retries.calls.isEmpty)
        #expect(worker.source.claims.calls.count == 1)
    }

    @Test func aTransientFailureRunsAgainUntilTheRetryPolicyGivesUp() async throws {
        var policy = JobRetryPolicy()
        policy.maximumAttempts = 3
        let worker = try WorkerHarness(source: InMemoryWorkSource(retryPolicy: policy))
        let url = URL(string: "http://127.0.0.1:9/fake/down.png")!
        worker.loader.fail(url, status: 503)
        let id = worker.add(url)
        await worker.waitForEnds(3, of: id)
        try await worker.stop()

        let ends = worker.ends(of: id)
        #expect(ends.map(\.job.attempt) == [1, 2, 3])
        #expect(ends.allSatisfy { if case .failed(_, _, isTransient: true) = $0.outcome { true } else { false } })
        #expect(worker.source.retries.calls.map(\.attempt) == [1, 2], "the third attempt was the last")
        #expect(worker.source.queuedJobIDs.isEmpty)
    }

    @Test func aDownloadRetryWithinAnAttemptIsPublished() async throws {
        var once = JobRetryPolicy()
        once.maximumAttempts = 1
        let worker = try WorkerHarness(source: InMemoryWorkSource(retryPolicy: once), configurePipeline: { configuration in
            configuration.retryPolicy.maximumAttempts = 2
            configuration.retryPolicy.initialDelay = .milliseconds(1)
        })
        let url = URL(string: "http://127.0.0.1:9/fake/flaky.png")!
        worker.loader.fail(url, status: 503)
        let id = worker.add(url)
        await worker.waitForEnds(of: id)
        try await worker.stop()

        let retrying = worker.source.events.calls.filter { $0.kind == .retrying }
        #expect(retrying.map(\.jobID) == [id])
        #expect(retrying.first?.fields["download_attempt"] == "1")
        #expect(retrying.first?.fields["error"] == "http_503")
        #expect(worker.loader.loadCount(of: url) == 2)
    }

    @Test func aJobWithAnInvalidURLIsDeadLetteredWithoutALoad() async throws {
        let worker = try WorkerHarness()
        let id = worker.source.add(url: "ftp://127.0.0.1/a.png")
        await worker.waitForEnds(of: id)
        try await worker.stop()

        guard case .deadLettered(let code, _) = worker.ends(of: id).first?.outcome else {
            Issue.record("not dead-lettered: \(worker.ends(of: id).map(\.outcome))")
            return
        }
        #expect(code == "invalid_url")
        #expect(worker.loader.loads.calls.isEmpty)
    }

    @Test func jobsAreClaimedHighestPriorityFirst() async throws {
        let source = InMemoryWorkSource()
        let low = source.add(url: "http://127.0.0.1:9/fake/low.png", priority: .low)
        let high = source.add(url: "http://127.0.0.1:9/fake/high.png", priority: .veryHigh)
        let normal = source.add(url: "http://127.0.0.1:9/fake/normal.png")
        let worker = try WorkerHarness(source: source, configure: { $0.concurrency = 1 })
        await source.ends.wait(for: 3)
        try await worker.stop()

        #expect(source.claims.calls.map(\.id) == [high, normal, low])
    }
}
