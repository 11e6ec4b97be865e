import Foundation
import PipelineEngine
import PipelineEngineFakes
import Scheduler
import SchedulerFakes
import Testing
@testable import WarmerWorker

/// What reaches a running job from the queue: control messages, and what
/// a lease renewal finds (the lease lost, the job cancelled meanwhile).
@Suite(.timeLimit(.minutes(1))) struct WorkerControlTests {
    @Test func aCancelMessageAbortsTheRunningJob() async throws {
        let worker = try WorkerHarness()
        let url = worker.image("cancelled")
        worker.loader.hold(url)
        let id = worker.add(url)
        await worker.loader.loads.wait { $0 == url }
        worker.source.send(.cancel(jobID: id))
        await worker.waitForEnds(of: id)
        try await worker.stop()

        #expect(worker.ends(of: id).map(\.outcome) == [.cancelled])
        #expect(worker.loader.cancelledLoads.calls == [url])
        #expect(worker.source.releases.calls.isEmpty)
    }

    @Test func theControlStreamIsFollowedFromBeforeTheFirstClaim() async throws {
        // Given a job queued before the worker starts (its claim loop and its
        // control reader start side by side)
        let source = InMemoryWorkSource(), loader = FakeDataLoader()
        let url = URL(string: "http://127.0.0.1:9/fake/early.png")!
        loader.serve(url, body: FakeImages.body("early"))
        loader.hold(url)
        let id = source.add(url: url.absoluteString)
        let worker = try WorkerHarness(source: source, loader: loader)
        await worker.loader.loads.wait { $0 == url }

        // Then the control stream's position was taken before that claim, so
        // a cancellation sent now reaches the job
        #expect(source.controlPositionReads.calls.first == 0, "\(source.controlPositionReads.calls)")
        worker.source.send(.cancel(jobID: id))
        await worker.waitForEnds(of: id)
        try await worker.stop()
        #expect(worker.ends(of: id).map(\.outcome) == [.cancelled])
    }

    @Test func aCancelMessageForAnotherJobChangesNothing() async throws {
        let worker = try WorkerHarness()
        let url = worker.image("kept")
        worker.loader.hold(url)
        let id = worker.add(url)
        await worker.loader.loads.wait { $0 == url }
        worker.source.send(.cancel(jobID: "someone-else"))
        // The message was read once the next one is: a cancellation that did reach the job.
        let marker = worker.image("marker")
        worker.loader.hold(marker)
        let markerID = worker.add(marker)
        await worker.loader.loads.wait { $0 == marker }
        worker.source.send(.cancel(jobID: markerID))
        await worker.waitForEnds(of: markerID)
        worker.loader.release(url)
        await worker.waitForEnds(of: id)
        try await worker.stop()

        #expect(worker.ends(of: id).map(\.outcome) == [.completed(source: "network", bytes: FakeImages.body("kept").count)])
    }

    @Test func aJobCancelledWhileRunningIsFoundByTheLeaseRenewal() async throws {
        let worker = try WorkerHarness(source: InMemoryWorkSource(leaseDuration: .milliseconds(200)))
        let url = worker.image("missed")
        worker.loader.hold(url)
        let id = worker.add(url)
        await worker.loader.loads.wait { $0 == url }
        worker.source.cancelWhileRunning(id)
        await worker.waitForEnds(of: id)
        try await worker.stop()

        #expect(worker.ends(of: id).map(\.outcome) == [.cancelled])
    }

    @Test func aLostLeaseAbandonsTheJobWithoutFinishingIt() async throws {
        let worker = try WorkerHarness(source: InMemoryWorkSource(leaseDuration: .milliseconds(200)))
        let url = worker.image("lost")
        worker.loader.hold(url)
        let id = worker.add(url)
        await worker.loader.loads.wait { $0 == url }
        worker.source.loseLease(of: id)
        await worker.loader.cancelledLoads.wait { $0 == url }
        await worker.source.releases.wait { $0.id == id }
        try await worker.stop()

        #expect(worker.ends(of: id).isEmpty, "a job whose lease was lost is never finished")
        #expect(worker.source.events.calls.isEmpty)
        #expect(worker.source.queuedJobIDs.isEmpty, "the release of a lost lease changes nothing")
    }

    @Test func theLeasesOfRunningJobsAreRenewed() async throws {
        let worker = try WorkerHarness(source: InMemoryWorkSource(leaseDuration: .milliseconds(200)))
        let url = worker.image("renewed")
        worker.loader.hold(url)
        let id = worker.add(url)
        await worker.source.renewals.wait(for: 2) { $0 == [id] }
        worker.loader.release(url)
        await worker.waitForEnds(of: id)
        try await worker.stop()

        #expect(worker.ends(of: id).count == 1)
    }
}
