import Foundation
import Synchronization
import Testing
import TestSupport

/// A `warmer worker` process for one test, stopped by `withWorkers`.
final class RunningWorker: Sendable {
    let process: CollectedProcess
    /// `--grace-period` it was started with.
    let gracePeriod: Duration
    private let stopSent = Atomic<Bool>(false)

    /// - Parameter arguments: more `warmer worker` flags (`--lease-duration 3`…).
    init(queue: QueueProbe, cacheDirectory: URL, concurrency: Int, gracePeriod: Int, arguments: [String] = [],
         environment: [String: String] = [:]) throws {
        self.gracePeriod = .seconds(gracePeriod)
        process = try CollectedProcess(["worker"] + queue.redisArguments + [
            "--cache-dir", cacheDirectory.path,
            "--concurrency", String(concurrency),
            "--grace-period", String(gracePeriod),
        ] + arguments, environment: environment)
    }

    /// The process id, for signals a test sends itself (SIGKILL).
    var processIdentifier: Int32 { process.processIdentifier }

    var isRunning: Bool { process.isRunning }
    /// The worker's structured log (standard error) so far.
    var log: String { process.standardErrorSoFar }

    /// Waits until the worker logged that it started claiming jobs (as
    /// text, or as JSON with `--log-format json`).
    func waitUntilReady() async throws {
        let ready = await eventually {
            log.contains("[worker] started") || log.contains(#""component":"worker","message":"started""#) || !isRunning
        }
        guard ready, isRunning else {
            throw HarnessError("worker did not start:\n\(log)")
        }
    }

    /// Sends SIGTERM: the graceful stop a test asks for.
    func requestStop() {
        stopSent.store(true, ordering: .sequentiallyConsistent)
        process.send(SIGTERM)
    }

    /// Sends SIGKILL: a crash the test causes on purpose. Recorded like
    /// `requestStop()`, so `withWorkers` does not report the death as the
    /// worker's own. Waits for the exit and returns it (nil if the process
    /// is somehow still there after 10 s).
    @discardableResult
    func kill() async -> CommandResult? {
        stopSent.store(true, ordering: .sequentiallyConsistent)
        process.send(SIGKILL)
        return await process.waitForExit(timeout: .seconds(10))
    }

    /// Stops the process (SIGSTOP) until `resumeWhen` holds (polled as
    /// `eventually` does, a minute at most), then lets it go on (SIGCONT):
    /// the stall of a pod throttled by its CPU limit, or of a host starved
    /// for CPU, measured in what the rest of the fleet did meanwhile rather
    /// than in time. Returns whether `resumeWhen` held.
    func pause(until resumeWhen: @escaping @Sendable () async throws -> Bool) async throws -> Bool {
        process.send(SIGSTOP)
        defer { process.send(SIGCONT) }
        return try await eventually(timeout: .seconds(60), resumeWhen)
    }

    /// Whether the test stopped the worker itself, with `requestStop()` or `kill()`.
    var wasAskedToStop: Bool { stopSent.load(ordering: .sequentiallyConsistent) }

    /// SIGTERM, then waits for the exit: up to the grace period plus `margin`,
    /// then SIGKILL. Returns the result, or nil if the worker had to be killed.
    func stop(margin: Duration = .seconds(10)) async -> CommandResult? {
        if isRunning { process.send(SIGTERM) }
        return await waitForExit(margin: margin)
    }

    /// Waits for an exit the test caused; SIGKILL after the grace period plus `margin`.
    func waitForExit(margin: Duration = .seconds(10)) async -> CommandResult? {
        if let result = await process.waitForExit(timeout: gracePeriod + margin) { return result }
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(5))
        return nil
    }
}

/// Starts `count` workers on `queue` sharing `cacheDirectory` (with more
/// worker flags in `arguments`), waits until
/// they are ready, runs `body`, and stops them (SIGTERM, wait) however `body`
/// ends. Records an issue when a worker died during `body`, or does not stop
/// cleanly with status 0 (unless `body` stopped it with `requestStop()` or
/// `kill()` and checked that itself).
func withWorkers<Result>(
    _ count: Int = 1, queue: QueueProbe, cacheDirectory: URL, concurrency: Int = 4, gracePeriod: Int = 10,
    arguments: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: ([RunningWorker]) async throws -> Result
) async throws -> Result {
    var workers: [RunningWorker] = []
    func stopAll() async {
        let diedOnItsOwn = workers.map { !$0.isRunning && !$0.wasAskedToStop }
        // Signal every worker first so that they stop in parallel.
        for worker in workers where worker.isRunning { worker.process.send(SIGTERM) }
        for (worker, died) in zip(workers, diedOnItsOwn) {
            let result = await worker.stop()
            // A test that stopped a worker itself checks that exit on its own.
            guard !worker.wasAskedToStop else { continue }
            #expect(!died, "a worker exited during the test: \(result.map { "\($0)" } ?? worker.log)",
                    sourceLocation: sourceLocation)
            guard !died else { continue }
            #expect(result != nil, "a worker did not stop within its grace period; killed it. Log:\n\(worker.log)",
                    sourceLocation: sourceLocation)
            if let result {
                #expect(result.exited && result.status == 0, "worker stopped badly: \(result)", sourceLocation: sourceLocation)
            }
        }
    }
    do {
        for _ in 0..<count {
            workers.append(try RunningWorker(queue: queue, cacheDirectory: cacheDirectory,
                                             concurrency: concurrency, gracePeriod: gracePeriod, arguments: arguments))
        }
        for worker in workers { try await worker.waitUntilReady() }
        let result = try await body(workers)
        await stopAll()
        return result
    } catch {
        await stopAll()
        // A harness timeout (a batch that never finished…) is explained by the
        // workers' logs; a failed #require has already been reported as is.
        guard error is HarnessError else { throw error }
        throw HarnessError("\(error)\n\(workers.logs)")
    }
}

extension Array where Element == RunningWorker {
    /// The end of every worker's log, for failure messages.
    var logs: String {
        enumerated().map { index, worker in
            let lines = worker.log.split(separator: "\n", omittingEmptySubsequences: false)
            return "--- worker \(index) log (last 40 lines) ---\n" + lines.suffix(40).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
