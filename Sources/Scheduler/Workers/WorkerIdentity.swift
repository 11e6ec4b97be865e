import Foundation

/// What a worker process is, for its heartbeat record: written with every
/// beat, unchanged for the life of the process.
public struct WorkerIdentity: Sendable, Hashable {
    /// The worker id, `host:pid:random` (the `worker` of its leases and events).
    public var id: String
    /// The host name, up to its first dot.
    public var host: String
    /// The process id.
    public var pid: Int
    /// The `warmer` version the worker runs.
    public var version: String
    /// Jobs the worker runs at once (`--concurrency`).
    public var concurrency: Int

    /// Describes a worker.
    public init(id: String, host: String, pid: Int, version: String, concurrency: Int) {
        self.id = id
        self.host = host
        self.pid = pid
        self.version = version
        self.concurrency = concurrency
    }
}
