import Foundation
import PipelineEngineFakes
import Scheduler
import SchedulerFakes
import Testing
import TestSupport
@testable import WarmerWorker

/// The worker's timers (the grace period, job time limits, heartbeats) on a
/// clock the test moves by hand: each fires at its deadline and not a
/// moment before, with no real time waited. The suite's time limit only
/// bounds a broken build's hang.
@Suite(.timeLimit(.minutes(1))) struct WorkerTimerTests {
    @Test func jobsStillRunningAreReleasedAtTheEndOfTheGracePeriodAndNotBefore() async throws {
        let clock = ManualClock()
        let worker = try WorkerHarness(configure: { $0.gracePeriod = .seconds(30); $0.clock = clock })
        worker.loader.hold()
        let ids = [worker.add(worker.image("first")), worker.add(worker.image("second"))]
        await worker.loader.loads.wait(for: 2)
        let stoppedAt = clock.now
        await worker.beginStop()
        await clock.waitForSleepers(until: stoppedAt + .seconds(30))

        clock.advance(by: .seconds(30) - .milliseconds(1))
        #expect(worker.source.releases.calls.isEmpty)
        #expect(worker.loader.cancelledLoads.calls.isEmpty)

        clock.advance(by: .milliseconds(1))
        try await worker.stop()
        #expect(Set(worker.source.releases.calls.map(\.id)) == Set(ids))
        #expect(Set(worker.source.queuedJobIDs) == Set(ids), "released jobs go back to the queue")
        #expect(worker.source.ends.calls.isEmpty)
    }

    @Test func aJobStillRunningAtItsTimeLimitFailsForGoodAsDeadlineExceeded() async throws {
        let clock = ManualClock()
        let worker = try WorkerHarness(configure: { $0.jobTimeout = .seconds(120); $0.clock = clock })
        let url = worker.image("slow")
        worker.loader.hold(url)
        let start = clock.now
        let id = worker.add(url)
        await worker.loader.loads.wait { $0 == url }
        await clock.waitForSleepers(until: start + .seconds(120))

        clock.advance(by: .seconds(120) - .milliseconds(1))
        #expect(worker.ends(of: id).isEmpty)

        clock.advance(by: .milliseconds(1))
        await worker.waitForEnds(of: id)
        try await worker.stop()
        guard case .failed(let code, _, let isTransient) = worker.ends(of: id).first?.outcome else {
            Issue.record("not failed: \(worker.ends(of: id).map(\.outcome))")
            return
        }
        #expect(code == TaskTimeLimit.errorCode)
        #expect(!isTransient, "another attempt would hold a slot as long again")
        #expect(worker.loader.cancelledLoads.calls == [url])
    }

    @Test func aJobsOwnTimeoutReplacesTheWorkersLimit() async throws {
        let clock = ManualClock()
        let worker = try WorkerHarness(configure: { $0.jobTimeout = .seconds(120); $0.clock = clock })
        let quick = worker.image("quick"), patient = worker.image("patient")
        worker.loader.hold()
        let start = clock.now
        let quickID = worker.source.add(url: quick.absoluteString, timeout: .seconds(5))
        let patientID = worker.add(patient)
        await worker.loader.loads.wait(for: 2)
        await clock.waitForSleepers(until: start + .seconds(5))
        await clock.waitForSleepers(until: start + .seconds(120))

        clock.advance(by: .seconds(5))
        await worker.waitForEnds(of: quickID)
        await worker.loader.cancelledLoads.wait { $0 == quick }
        #expect(worker.ends(of: patientID).isEmpty)

        worker.loader.release(patient)
        await worker.waitForEnds(of: patientID)
        try await worker.stop()
        #expect(worker.ends(of: quickID).map(\.outcome.code) == [TaskTimeLimit.errorCode])
        #expect(worker.ends(of: patientID).map(\.outcome.code) == [nil], "completed")
        #expect(worker.loader.cancelledLoads.calls == [quick])
    }

    @Test func aFinishThatCannotReachRedisIsSentAgainUntilRedisAnswersHoweverLongTheLeaseHasBeenOver() async throws {
        let clock = ManualClock()
        let worker = try WorkerHarness(source: InMemoryWorkSource(leaseDuration: .seconds(30)), configure: { $0.clock = clock })
        worker.source.cutOffFinishes()
        let id = worker.add(worker.image("cut-off"))
        await worker.source.failedFinishes.wait(for: 1)
        await clock.waitForSleepers(until: clock.now + .milliseconds(100))

        // Ten minutes without Redis, twenty leases: the next try still goes out
        clock.advance(by: .seconds(600))
        await worker.source.failedFinishes.wait(for: 2)
        #expect(worker.ends(of: id).isEmpty)
        #expect(!worker.logs.calls.contains { $0.hasPrefix("gave up finishing") }, "\(worker.logs.calls)")

        // …and once Redis answers again, the job ends where it ran, not on another worker after a stall
        worker.source.restoreFinishes()
        await clock.waitForSleepers(until: clock.now + .milliseconds(200))
        clock.advance(by: .milliseconds(200))
        await worker.waitForEnds(of: id)
        try await worker.stop()
        #expect(worker.ends(of: id).map(\.outcome) == [.completed(source: "network", bytes: FakeImages.body("cut-off").count)])
        #expect(worker.logs.calls.contains("finished job once Redis answered again"), "\(worker.logs.calls)")
    }

    @Test func aFinishThatCannotReachRedisStopsTryingWhenTheGracePeriodEndsAndTheWorkerStops() async throws {
        let clock = ManualClock()
        // (A grace period longer than the suite's time limit: the service group's own escalation,
        // grace period + 10 s of real time, would end a finish that never gave up by cancelling it.)
        let worker = try WorkerHarness(configure: { $0.gracePeriod = .seconds(600); $0.clock = clock })
        let stoppedAt = clock.now
        worker.source.cutOffFinishes()
        let id = worker.add(worker.image("never-acknowledged"))
        await worker.source.failedFinishes.wait(for: 1)
        await clock.waitForSleepers(until: clock.now + .milliseconds(100))
        await worker.beginStop()
        await worker.waitForLog("stopping: no new jobs")

        // When Redis stays out of reach to a moment before the grace period ends…
        clock.advance(by: .seconds(600) - .milliseconds(1))
        await worker.source.failedFinishes.wait(for: 2)
        await clock.waitForSleepers(until: clock.now + .milliseconds(200))
        #expect(!worker.logs.calls.contains { $0.hasPrefix("gave up finishing") }, "\(worker.logs.calls)")

        // …and past it, the worker letting go of its jobs before the finish's next try
        clock.advance(by: .milliseconds(1))
        #expect(clock.now == stoppedAt + .seconds(600))
        await worker.waitForLog("grace period over: releasing unfinished jobs")
        clock.advance(by: .milliseconds(200))

        // Then that try is its last, and the worker stops, the job left to its lease
        try await worker.stop()
        #expect(worker.logs.calls.contains("gave up finishing job; its lease will expire and it will run again"))
        #expect(worker.source.failedFinishes.calls.count == 3)
        #expect(worker.ends(of: id).isEmpty)
    }

    @Test func theHeartbeatBeatsEveryThirdOfALease() async throws {
        let clock = ManualClock()
        let worker = try WorkerHarness(source: InMemoryWorkSource(leaseDuration: .seconds(30)),
                                       configure: { $0.clock = clock })
        let start = clock.now
        await worker.source.beats.wait()
        await clock.waitForSleepers(until: start + .seconds(10))

        clock.advance(by: .seconds(10) - .milliseconds(1))
        #expect(worker.source.beats.calls.count == 1)

        clock.advance(by: .milliseconds(1))
        await worker.source.beats.wait(for: 2)
        await clock.waitForSleepers(until: start + .seconds(20))
        clock.advance(by: .seconds(10))
        await worker.source.beats.wait(for: 3)
        try await worker.stop()
        #expect(worker.source.beats.calls.count == 3)
    }
}

private extension JobOutcome {
    /// The error code of a failure; nil for any other outcome.
    var code: String? {
        if case .failed(let code, _, _) = self { code } else { nil }
    }
}
