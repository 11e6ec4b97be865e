import Foundation
import Logging
import PipelineEngine
import PipelineEngineFakes
import Scheduler
import SchedulerFakes
import ServiceLifecycle
import TestSupport
import Testing
@testable import WarmerWorker

/// A priority message moves a running job's pipeline work (`ControlReader`
/// over `RunningJobs`, whose tasks a whole worker does not expose).
@Suite(.timeLimit(.minutes(1))) struct RunningJobPriorityTests {
    @Test func aPriorityMessageMovesTheRunningTask() async throws {
        let source = InMemoryWorkSource()
        let loader = FakeDataLoader()
        let pipeline = ImagePipeline(configuration: .init(dataLoader: loader, dataCache: InMemoryDataCache()))
        let url = URL(string: "http://127.0.0.1:9/fake/moved.png")!
        loader.serve(url, body: FakeImages.body("moved"))
        loader.hold(url)
        let job = Job(id: "moved", url: url.absoluteString, batches: ["b"], priority: "low", destination: "disk",
                      attempt: 1, leaseToken: "t")
        let running = RunningJobs(capacity: 1)
        await running.add(job)
        let task = pipeline.prefetchData(for: ImageRequest(url: url, priority: .low))
        await running.attach(task, to: job.id)
        let reader = ControlReader(source: source, running: running, state: WorkerState(), idleWait: .seconds(5),
                                   logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let group = ServiceGroup(services: [reader], logger: Logger(label: "group") { _ in SwiftLogNoOpLogHandler() })
        let reading = Task { try await group.run() }

        // The reader starts from the stream's end: it has begun once it reads a message sent after it.
        let moved = await eventually {
            source.send(.priority(jobID: job.id, priority: .veryHigh))
            return task.priority == .veryHigh
        }
        await group.triggerGracefulShutdown()
        try await reading.value
        task.cancel()

        #expect(moved)
    }
}

extension RunningJobPriorityTests {
    /// A job's pipeline task starts a moment after its claim: a priority
    /// message read in between reaches the task when it is attached.
    @Test func aPriorityChangedBeforeTheTaskIsAttachedReachesIt() async throws {
        let loader = FakeDataLoader()
        let pipeline = ImagePipeline(configuration: .init(dataLoader: loader, dataCache: InMemoryDataCache()))
        let url = URL(string: "http://127.0.0.1:9/fake/early.png")!
        loader.hold(url)
        let job = Job(id: "early", url: url.absoluteString, batches: ["b"], priority: "low", destination: "disk",
                      attempt: 1, leaseToken: "t")
        let running = RunningJobs(capacity: 1)
        await running.add(job)
        await running.setPriority(.veryHigh, of: job.id)
        let task = pipeline.prefetchData(for: ImageRequest(url: url, priority: .low))
        await running.attach(task, to: job.id)
        let priority = task.priority
        task.cancel()

        #expect(priority == .veryHigh)
    }
}
