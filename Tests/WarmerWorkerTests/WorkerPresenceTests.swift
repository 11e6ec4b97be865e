import Foundation
import PipelineEngineFakes
import Scheduler
import SchedulerFakes
import Testing
@testable import WarmerWorker

/// The worker's heartbeat record, its concurrency bound and the control
/// documents it applies for the queue.
@Suite(.timeLimit(.minutes(1))) struct WorkerPresenceTests {
    @Test func theHeartbeatReportsTheRunningJobsAndIsRemovedAtTheStop() async throws {
        let worker = try WorkerHarness(source: InMemoryWorkSource(leaseDuration: .milliseconds(150)),
                                       configure: { $0.concurrency = 3; $0.gracePeriod = .zero })
        await worker.source.beats.wait()
        let url = worker.image("busy")
        worker.loader.hold(url)
        let id = worker.add(url)
        await worker.source.beats.wait { $0.load == WorkerLoad(busySlots: 1, runningJobIDs: [id]) }
        try await worker.stop()

        let identity = try #require(worker.source.beats.calls.first?.identity)
        #expect(identity.concurrency == 3)
        #expect(worker.source.beats.calls.first?.load == WorkerLoad.idle, "the first beat came before the job")
        #expect(worker.source.removedWorkers.calls == [identity.id])
    }

    @Test func noMoreJobsRunAtOnceThanTheConcurrency() async throws {
        let worker = try WorkerHarness(configure: { $0.concurrency = 2 })
        worker.loader.hold()
        let ids = (1...5).map { worker.add(worker.image("job\($0)")) }
        await worker.loader.loads.wait(for: 2)
        #expect(worker.source.claims.calls.count == 2)
        #expect(worker.source.queuedJobIDs == Array(ids.dropFirst(2)))
        worker.loader.releaseAll()
        await worker.source.ends.wait(for: 5)
        try await worker.stop()

        #expect(worker.source.mostLeased == 2)
        #expect(Set(worker.source.ends.calls.map(\.job.id)) == Set(ids))
    }

    @Test func aControlDocumentIsAppliedStepByStep() async throws {
        let worker = try WorkerHarness()
        worker.source.push([
            .inProgress(operation: "cancel", id: "doc-1"),
            .inProgress(operation: "cancel", id: "doc-1"),
            .applied(fields: ["op": "cancel", "id": "doc-1", "jobs": "5000"]),
        ])
        await worker.source.appliedSteps.wait(for: 3)
        worker.source.push([.deadLettered(deadLetterID: "d-1", error: "malformed_document", message: "not JSON", id: nil, operation: nil)])
        await worker.source.appliedSteps.wait(for: 4)
        try await worker.stop()

        #expect(worker.source.pendingControlSteps.isEmpty)
        #expect(worker.source.appliedSteps.calls.last == ControlDocumentStep.deadLettered(
            deadLetterID: "d-1", error: "malformed_document", message: "not JSON", id: nil, operation: nil
        ))
    }
}
