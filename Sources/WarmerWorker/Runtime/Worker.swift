import Foundation
import Logging
import PipelineEngine
import Prometheus
import RedisKit
import Scheduler
import ServiceLifecycle
import UnixSignals
import WarmerSupport

/// The long-running worker: its parts run as services of one
/// swift-service-lifecycle `ServiceGroup`, which turns the first SIGTERM or
/// SIGINT into a graceful shutdown of each, in the reverse of this order:
///
/// 1. `SystemdWatchdog`, under a systemd `Type=notify` unit only: `READY=1`,
///    watchdog keep-alives while the loops turn, `STOPPING=1`;
/// 2. `ForcedRelease`, when the worker has shutdown signals: at a second
///    signal, releases every held job at once;
/// 3. `LeaseKeeper`: renews the held jobs' leases on a thread of its own;
/// 4. `ControlReader`: applies cancellations and priority changes to the
///    jobs this worker runs;
/// 5. `ControlDocumentApplier`: applies the control documents clients push
///    onto the queue's commands list;
/// 6. the worker's heartbeat record in Redis (`WorkerHeartbeat`);
/// 7. `CacheSweeper`: sweeps the cache folder when elected its sweeper;
/// 8. the HTTP endpoints (`StatusServer`), when asked for;
/// 9. `JobClaimer`: claims and runs jobs; on shutdown it claims nothing more,
///    lets running jobs finish for up to the grace period and releases
///    the rest.
///
/// The claimer is thus shut down first, and everything it relies on (leases,
/// control, probes, the heartbeat) keeps working until it has drained.
package struct Worker: Sendable {
    /// Tunables of a worker process.
    package struct Configuration: Sendable {
        package var concurrency = 8
        package var gracePeriod: Duration = .seconds(30)
        package var idleWait: Duration = .seconds(1)
        package var progressInterval: Duration = .milliseconds(250)
        /// The time limit of a job that has none of its own (`--job-timeout`).
        package var jobTimeout: Duration = .seconds(120)
        /// The time between two sweeps of the cache folder (by the worker
        /// elected among those sharing it; `--cache-sweep-interval`).
        package var cacheSweepInterval: Duration = .seconds(30)
        /// Where to serve `/metrics`, `/healthz`, `/readyz` and `/v1/queue`; `nil` for no HTTP server.
        package var http: HTTPEndpoint?
        /// The signals that start a graceful shutdown, and whose second
        /// one releases every held job (`ForcedRelease`); none when the
        /// worker runs inside a service group of someone else's (tests),
        /// which shuts it down.
        package var shutdownSignals: [UnixSignal] = [.sigterm, .sigint]
        /// What the worker's timers run on (`TimerClock`): real time, unless a test moves it.
        package var clock: any TimerClock = ContinuousClock()

        /// The defaults: 8 jobs at once, 30 s of grace, no HTTP server.
        package init() {}
    }

    /// An HTTP server's address, and what it exports.
    package struct HTTPEndpoint: Sendable {
        package var host: String
        package var port: Int
        /// The metrics backend bootstrapped for this process.
        package var registry: PrometheusCollectorRegistry
        /// A client of its own for `/readyz`'s PING.
        package var probeClient: RedisClient

        /// Serves on `host`:`port` the metrics of `registry`, probing Redis with `probeClient`.
        package init(host: String, port: Int, registry: PrometheusCollectorRegistry, probeClient: RedisClient) {
            self.host = host
            self.port = port
            self.registry = registry
            self.probeClient = probeClient
        }
    }

    /// The queue the jobs come from (`RedisWorkSource` in production).
    let source: any WorkSource
    /// Where the workers sharing the cache folder elect its sweeper
    /// (`CacheSweeper`); nil: this worker never sweeps the folder.
    let sweepClient: RedisClient?
    let pipeline: ImagePipeline
    /// The pipeline's disk cache, which this worker sweeps when elected.
    let dataCache: DataCache
    let cacheHealth: CacheFolderHealth
    let configuration: Configuration
    let workerID: String
    let logger: Logger

    /// A worker running jobs of `source` through `pipeline`, whose disk
    /// cache is `dataCache` (checked by `cacheHealth`).
    package init(source: any WorkSource, sweepClient: RedisClient?, pipeline: ImagePipeline, dataCache: DataCache,
                 cacheHealth: CacheFolderHealth, configuration: Configuration, logger: Logger) {
        self.source = source
        self.sweepClient = sweepClient
        self.pipeline = pipeline
        self.dataCache = dataCache
        self.cacheHealth = cacheHealth
        self.configuration = configuration
        self.logger = logger
        self.workerID = Self.makeWorkerID()
    }

    /// `host:pid:random`, unique per process.
    static func makeWorkerID() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        let suffix = UUID().uuidString.prefix(4).lowercased()
        return "\(host):\(getpid()):\(suffix)"
    }

    /// Runs until a stop signal and every held job is finished or released.
    /// - Throws: when a service fails to start (the HTTP port is taken).
    package func run() async throws {
        let state = WorkerState()
        let running = RunningJobs(capacity: configuration.concurrency)
        let finisher = FinishBatcher(source: source, worker: workerID, onCall: { _ in WorkerMetrics.finishCall() })
        let runner = JobRunner(
            source: source, finisher: finisher,
            prefetchers: JobPrefetchers(pipeline: pipeline, concurrency: configuration.concurrency), running: running,
            workerID: workerID, progressInterval: configuration.progressInterval,
            processingLimits: pipeline.configuration.processingLimits, jobTimeout: configuration.jobTimeout,
            clock: configuration.clock,
            cacheHealth: cacheHealth, state: state, logger: logger
        )
        let leaseKeeper = LeaseKeeper(
            source: source, leases: running.leases, logger: logger, state: state,
            onLost: { ids in await running.abandon(ids) },
            onCancelled: { ids in _ = await running.cancel(ids) }
        )
        let allowances = LoopAllowances(leases: source.leaseDuration)
        // The services start side by side: a claim can come before the
        // control reader's first read. Taken now, its position precedes every
        // job this worker claims, so no cancellation sent after a claim is
        // missed. (Should Redis not answer, the reader takes it when it can;
        // the lease renewals still find such a job cancelled.)
        let controlStart = try? await source.latestControlPosition()
        var services: [any Service] = []
        let notifier = SystemdNotifier()
        if notifier.isEnabled {
            services.append(SystemdWatchdog(notifier: notifier, state: state, allowances: allowances, logger: logger))
        }
        if !configuration.shutdownSignals.isEmpty {
            // (A worker stopped by its host's service group traps no signal of the process.)
            services.append(ForcedRelease(signals: configuration.shutdownSignals, running: running, logger: logger))
        }
        services += [
            leaseKeeper,
            ControlReader(source: source, running: running, state: state, idleWait: configuration.idleWait,
                          startPosition: controlStart, logger: logger),
            ControlDocumentApplier(source: source, state: state, idleWait: configuration.idleWait, logger: logger),
            makeHeartbeat(running),
        ]
        if let sweepClient {
            services.append(CacheSweeper(dataCache: dataCache, client: sweepClient, workerID: workerID,
                                         interval: configuration.cacheSweepInterval, logger: logger))
        }
        if let http = configuration.http {
            let sampler = QueueSampler(source: source, logger: logger)
            services.append(sampler)
            services.append(StatusServer.make(
                host: http.host, port: http.port, registry: http.registry, sampler: sampler,
                readiness: Readiness(redis: http.probeClient, state: state), state: state,
                allowances: allowances, logger: logger
            ))
        }
        services.append(JobClaimer(
            source: source, runner: runner, running: running, state: state,
            cacheHealth: cacheHealth, workerID: workerID, idleWait: configuration.idleWait,
            gracePeriod: configuration.gracePeriod, clock: configuration.clock, logger: logger
        ))
        WorkerMetrics.slots(held: 0, capacity: configuration.concurrency)
        var groupConfiguration = ServiceGroupConfiguration(
            services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
            gracefulShutdownSignals: configuration.shutdownSignals,
            logger: logger
        )
        // Bounds on the way out, so a supervisor's stop timeout (grace period
        // plus a margin, deploy/) is never reached: the drain is the grace
        // period, then releases and the heartbeat's removal; a shutdown
        // stuck on an unreachable Redis is cancelled (held jobs released at
        // once), and a cancellation that hangs ends the group anyway.
        groupConfiguration.maximumGracefulShutdownDuration = configuration.gracePeriod + .seconds(10)
        groupConfiguration.maximumCancellationDuration = .seconds(5)
        let group = ServiceGroup(configuration: groupConfiguration)
        try await group.run()
        logger.info("stopped", metadata: ["worker": "\(workerID)"])
    }

    /// The service keeping this worker's record in the queue's registry
    /// (`warmer workers`), fed with the jobs it holds.
    private func makeHeartbeat(_ running: RunningJobs) -> WorkerHeartbeat {
        let identity = WorkerIdentity(
            id: workerID, host: workerID.split(separator: ":").first.map(String.init) ?? "host", pid: Int(getpid()),
            version: WarmerVersion.current, concurrency: configuration.concurrency
        )
        return WorkerHeartbeat(source: source, identity: identity, clock: configuration.clock, logger: logger) {
            let ids = running.leases.snapshot.map(\.id).sorted { ($0.count, $0) < ($1.count, $1) }
            return WorkerLoad(busySlots: ids.count, runningJobIDs: ids)
        }
    }
}
