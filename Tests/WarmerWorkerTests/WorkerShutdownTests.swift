import Foundation
import PipelineEngineFakes
import Scheduler
import SchedulerFakes
import Testing
@testable import WarmerWorker

/// A worker's graceful shutdown: it claims nothing more, lets running jobs
/// finish for up to the grace period and releases the rest.
@Suite(.timeLimit(.minutes(1))) struct WorkerShutdownTests {
    @Test func aRunningJobFinishesWithinTheGracePeriodAndNothingMoreIsClaimed() async throws {
        // The grace period only bounds a hang: the job ends long before it.
        let worker = try WorkerHarness(configure: { $0.concurrency = 1; $0.gracePeriod = .seconds(50) })
        let url = worker.image("draining")
        worker.loader.hold(url)
        let id = worker.add(url)
        let waiting = worker.add(worker.image("waiting"))
        await worker.loader.loads.wait { $0 == url }
        await worker.beginStop()
        await worker.waitForLog("stopping: no new jobs")
        worker.loader.release(url)
        try await worker.stop()

        #expect(worker.ends(of: id).map(\.outcome) == [.completed(source: "network", bytes: FakeImages.body("draining").count)])
        #expect(worker.source.claims.calls.map(\.id) == [id])
        #expect(worker.source.queuedJobIDs == [waiting])
        #expect(worker.source.releases.calls.isEmpty)
    }

    @Test func jobsStillRunningWhenTheGracePeriodEndsAreReleased() async throws {
        let worker = try WorkerHarness(configure: { $0.concurrency = 2; $0.gracePeriod = .zero })
        let first = worker.image("first"), second = worker.image("second")
        worker.loader.hold()
        let ids = [worker.add(first), worker.add(second)]
        await worker.loader.loads.wait(for: 2)
        try await worker.stop()

        #expect(worker.source.ends.calls.isEmpty)
        #expect(Set(worker.source.releases.calls.map(\.id)) == Set(ids))
        #expect(Set(worker.source.queuedJobIDs) == Set(ids), "released jobs go back to the queue")
        #expect(worker.source.leasedJobIDs.isEmpty)
        #expect(Set(worker.loader.cancelledLoads.calls) == [first, second])
    }

    @Test func anIdleWorkerStopsAndRemovesItsRecord() async throws {
        let worker = try WorkerHarness()
        await worker.source.beats.wait()
        try await worker.stop()

        #expect(worker.source.removedWorkers.calls == [worker.source.beats.calls[0].identity.id])
        #expect(worker.source.claims.calls.isEmpty)
    }

    @Test func aStopEndsTheIdleWaitForWorkRatherThanWaitingItOut() async throws {
        // Given an idle worker whose wait for work would last an hour
        // (a Redis BLMOVE ends when its task is cancelled: RedisClientBlockingTests)
        let worker = try WorkerHarness(configure: { $0.idleWait = .seconds(3600) })
        await worker.source.workWaits.wait()

        // When it is stopped, then it stops (the suite's time limit catches a
        // worker that waits the hour out), claiming nothing
        try await worker.stop()
        #expect(worker.source.workWaits.calls == [.seconds(3600)])
        #expect(worker.source.claims.calls.isEmpty)
        #expect(worker.logs.calls.contains("stopping: no new jobs"))
    }
}
