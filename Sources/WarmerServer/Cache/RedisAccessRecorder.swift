import Foundation
import Logging
import PipelineEngine
import RedisKit
import ServiceLifecycle
import Synchronization
import WarmerWorker

/// How `warmer serve` counts its reads of the cache for the LRU sweep
/// without writing the folder (it may be mounted read-only): reads are
/// gathered in memory and sent every `interval` to the folder's
/// `CacheAccessLog` in Redis, which the folder's elected sweeper applies
/// before it sweeps (`CacheSweeper`).
///
/// The folder is found by its identity (`CacheFolderIdentity`), which a
/// worker writes; until one has, reads are not recorded. At most
/// `capacity` distinct entries wait between two sends; more are dropped
/// (a read is a hint, not a promise). Runs as a service: it sends what
/// is left at a graceful shutdown.
package final class RedisAccessRecorder: DataCacheAccessRecording, Service {
    let directory: URL
    let client: RedisClient
    let interval: Duration
    let logger: Logger
    /// The most entries gathered between two sends.
    static let capacity = 10_000
    private let pending = Mutex<Set<String>>([])
    /// The folder's read log, found once the folder has an identity.
    private let log = Mutex<CacheAccessLog?>(nil)

    package init(directory: URL, client: RedisClient, interval: Duration = .seconds(1), logger: Logger) {
        self.directory = directory
        self.client = client
        self.interval = interval
        self.logger = logger
    }

    package func recordAccess(toEntryNamed filename: String) {
        pending.withLock { pending in
            if pending.count < Self.capacity { pending.insert(filename) }
        }
    }

    package func run() async throws {
        try? await cancelWhenGracefulShutdown { [self] in
            while true {
                try await Task.sleep(for: interval)
                await send()
            }
        }
        await send()
    }

    /// Sends the gathered reads, once the folder's identity is known.
    private func send() async {
        guard let log = accessLog() else { return }
        let names = pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        do {
            try await log.record(names)
        } catch {
            logger.warning("could not record cache reads in Redis; they are dropped",
                           metadata: ["count": "\(names.count)", "error": "\(error)"])
        }
    }

    /// The folder's read log, once a worker has written its identity.
    private func accessLog() -> CacheAccessLog? {
        log.withLock { log in
            if log == nil, let id = CacheFolderIdentity.id(of: directory, creating: false) {
                log = CacheAccessLog(client: client, keys: SharedCacheKeys(folderID: id))
            }
            return log
        }
    }
}
