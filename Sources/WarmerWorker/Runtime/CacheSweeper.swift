import Foundation
import Logging
import PipelineEngine
import RedisKit
import WarmerSupport
import ServiceLifecycle

/// Sweeps a cache folder that several workers (of one host or many, of one
/// queue or several) share, from one of them at a time: every `interval`
/// each worker asks for the folder's lease (`CacheSweepLease`, keyed by the
/// folder's identity); the holder applies the reads `warmer serve` recorded
/// (`CacheAccessLog`), then sweeps (`DataCache.sweep()`: leftovers, moving
/// flat files into their shards, LRU eviction), renewing the lease while it
/// sweeps. The others do nothing, so a folder of a million files is listed
/// once per interval, not once per worker.
///
/// Each sweep is logged (`cache swept`, info) and counted
/// (`warmer_cache_sweeps_total`). When Redis does not answer, nobody sweeps
/// until it does (the folder outgrows its limit meanwhile, by what is
/// written in that time). At a clean stop the holder gives the lease up.
struct CacheSweeper: Service {
    let dataCache: DataCache
    let client: RedisClient
    let workerID: String
    let interval: Duration
    let logger: Logger

    /// The most recorded reads applied before one sweep.
    static let readsPerSweep = SharedCacheKeys.readsCapacity

    /// How long the lease lasts: three intervals, at least 10 s.
    var leaseDuration: Duration { max(interval * 3, .seconds(10)) }

    func run() async throws {
        guard let folderID = CacheFolderIdentity.id(of: dataCache.directory, creating: true) else {
            logger.warning("cache folder has no identity and none could be written; this worker sweeps it alone",
                           metadata: ["directory": "\(dataCache.directory.path)"])
            try? await cancelWhenGracefulShutdown { [self] in try await sweepAlone() }
            return
        }
        let keys = SharedCacheKeys(folderID: folderID)
        let lease = CacheSweepLease(client: client, key: keys.sweeper, holder: workerID, duration: leaseDuration)
        try? await cancelWhenGracefulShutdown { [self] in
            try await sweepWhenElected(lease: lease, reads: CacheAccessLog(client: client, keys: keys))
        }
        await lease.release()
    }

    /// Every interval: sweeps if this worker holds the lease.
    private func sweepWhenElected(lease: CacheSweepLease, reads: CacheAccessLog) async throws {
        var failing = false
        try await Task.sleep(for: min(interval, .seconds(1)))
        while true {
            do {
                if try await lease.acquireOrRenew() {
                    let names = try await takeReads(reads)
                    try await sweep(applying: names, lease: lease)
                }
                failing = false
            } catch let error as RedisError {
                if !failing { logger.warning("cache sweep election failed, retrying", metadata: ["error": "\(error)"]) }
                failing = true
            }
            try await Task.sleep(for: interval)
        }
    }

    /// Sweeps every interval without asking anyone.
    private func sweepAlone() async throws {
        while true {
            try await Task.sleep(for: interval)
            try await sweep(applying: [], lease: nil)
        }
    }

    /// The reads recorded since the last sweep, at most `readsPerSweep`.
    private func takeReads(_ reads: CacheAccessLog) async throws(RedisError) -> [String] {
        var names: [String] = []
        while names.count < Self.readsPerSweep {
            let batch = try await reads.take(1000)
            names += batch
            if batch.count < 1000 { break }
        }
        return names
    }

    /// Applies `names`' reads and sweeps on a thread of its own (it blocks
    /// for as long as listing the folder takes), renewing `lease` meanwhile.
    private func sweep(applying names: [String], lease: CacheSweepLease?) async throws {
        let start = ContinuousClock.now
        let dataCache = self.dataCache
        let report = try await withThrowingTaskGroup(of: DataCacheSweepReport?.self) { group in
            group.addTask {
                await Self.onThread {
                    for name in names { dataCache.applyRecordedAccess(toEntryNamed: name) }
                    return dataCache.sweep()
                }
            }
            if let lease {
                group.addTask { [leaseDuration] in
                    while true {
                        try await Task.sleep(for: leaseDuration / 3)
                        _ = try? await lease.acquireOrRenew()
                    }
                }
            }
            let report = try await group.next() ?? nil
            group.cancelAll()
            return report ?? DataCacheSweepReport()
        }
        WorkerMetrics.cacheSwept(files: report.files, bytes: report.bytes, evicted: report.evicted)
        logger.info("cache swept", metadata: [
            "worker": "\(workerID)", "files": "\(report.files)", "bytes": "\(report.bytes)",
            "evicted": "\(report.evicted)", "migrated": "\(report.migrated)", "reads": "\(names.count)",
            "seconds": "\(String(format: "%.3f", (ContinuousClock.now - start).seconds))",
        ])
    }

    /// Runs `body` on a new thread, off Swift's cooperative pool.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
