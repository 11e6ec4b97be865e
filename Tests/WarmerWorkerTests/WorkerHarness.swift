import Foundation
import Logging
import PipelineEngine
import PipelineEngineFakes
import Scheduler
import SchedulerFakes
import ServiceLifecycle
import TestSupport
@testable import WarmerWorker

/// A worker running in the test's process over the in-memory queue
/// (`InMemoryWorkSource`) and a pipeline of fakes (`FakeDataLoader`,
/// `InMemoryDataCache`): no Redis, no network, no process. The test adds
/// jobs, holds or serves their URLs, waits for what the queue and the
/// loader record, and stops the worker as a signal would
/// (`stop()`: a graceful shutdown of the service group it runs in).
final class WorkerHarness: Sendable {
    let source: InMemoryWorkSource
    let loader: FakeDataLoader
    let cache: InMemoryDataCache
    /// Every message the worker logged.
    let logs: CallLog<String>
    let configuration: Worker.Configuration
    private let folder: URL
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    /// Starts a worker.
    /// - Parameters:
    ///   - source: the queue (a short `leaseDuration` for renewals and beats to come soon).
    ///   - loader: the pipeline's loader (one prepared before the worker starts,
    ///     for jobs queued before it starts).
    ///   - configure: changes to the worker's configuration (concurrency, grace period).
    ///   - configurePipeline: changes to the pipeline's (its own download retries).
    init(
        source: InMemoryWorkSource = InMemoryWorkSource(),
        loader: FakeDataLoader = FakeDataLoader(),
        configure: (inout Worker.Configuration) -> Void = { _ in },
        configurePipeline: (inout ImagePipeline.Configuration) -> Void = { _ in }
    ) throws {
        let cache = InMemoryDataCache(), logs = CallLog<String>()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("warmer-worker-\(UUID().uuidString)")
        var pipelineConfiguration = ImagePipeline.Configuration(dataLoader: loader, dataCache: cache)
        pipelineConfiguration.retryPolicy.maximumAttempts = 1
        configurePipeline(&pipelineConfiguration)
        var configuration = Worker.Configuration()
        configuration.concurrency = 4
        configuration.shutdownSignals = []
        // Only how long an idle claim loop waits before it sees a stop; never a test's deadline.
        configuration.idleWait = .milliseconds(100)
        configuration.progressInterval = .zero
        configure(&configuration)
        let worker = Worker(
            source: source, sweepClient: nil, pipeline: ImagePipeline(configuration: pipelineConfiguration),
            dataCache: try DataCache(directory: folder, sweepInterval: nil),
            cacheHealth: CacheFolderHealth(directory: folder), configuration: configuration,
            logger: Logger(label: "worker") { _ in LogRecorder(messages: logs) }
        )
        let group = ServiceGroup(services: [WorkerService(worker: worker)], logger: Logger(label: "group") { _ in
            SwiftLogNoOpLogHandler()
        })
        self.source = source
        self.loader = loader
        self.cache = cache
        self.logs = logs
        self.configuration = configuration
        self.folder = folder
        self.group = group
        running = Task { try await group.run() }
    }

    /// A URL the fake loader serves, with `name` as its body (on a loopback
    /// address nothing listens on: nothing connects to it).
    func image(_ name: String) -> URL {
        let url = URL(string: "http://127.0.0.1:9/fake/\(name).png")!
        loader.serve(url, body: FakeImages.body(name))
        return url
    }

    /// Adds a job for `url` to the queue.
    @discardableResult
    func add(_ url: URL, priority: JobPriority = .normal) -> String {
        source.add(url: url.absoluteString, priority: priority)
    }

    /// Starts the graceful shutdown, as a stop signal does, and returns at once.
    func beginStop() async {
        await group.triggerGracefulShutdown()
    }

    /// Stops the worker gracefully and returns when it has stopped.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await running.value
        try? FileManager.default.removeItem(at: folder)
    }

    /// The ends of the job `id` the worker reported, in order.
    func ends(of id: String) -> [JobEnd] {
        source.ends.calls.filter { $0.job.id == id }
    }

    /// Waits until the worker reported `count` ends of job `id`.
    func waitForEnds(_ count: Int = 1, of id: String) async {
        await source.ends.wait(for: count) { $0.job.id == id }
    }

    /// Waits until the worker logged `message`.
    func waitForLog(_ message: String) async {
        await logs.wait { $0 == message }
    }
}

/// The worker as a service of the test's own group.
private struct WorkerService: Service {
    let worker: Worker

    func run() async throws {
        try await worker.run()
    }
}
