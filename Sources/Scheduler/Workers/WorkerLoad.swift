/// What a worker is doing at one moment, sent with each heartbeat.
public struct WorkerLoad: Sendable, Hashable {
    /// Slots holding a job.
    public var busySlots: Int
    /// Ids of the jobs the worker holds.
    public var runningJobIDs: [String]

    /// Describes a worker's load.
    public init(busySlots: Int, runningJobIDs: [String]) {
        self.busySlots = busySlots
        self.runningJobIDs = runningJobIDs
    }

    /// An idle worker.
    public static let idle = WorkerLoad(busySlots: 0, runningJobIDs: [])
}
