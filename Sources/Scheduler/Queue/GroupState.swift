/// A group of fair queueing as Redis holds it: its settings (`JobQueue.setGroup`)
/// and its jobs queued and running (docs/wire-format.md, "The order jobs are
/// handed out").
public struct GroupState: Sendable, Hashable, Codable {
    /// The group's name: a batch id, or a producer's `group`.
    public let name: String
    /// Claims it gets for each claim of a weight-1 group of its priority (1 when never set).
    public let weight: Int
    /// The most of its jobs running at once, fleet-wide; nil for no limit.
    public let maxInFlight: Int?
    /// Its jobs queued.
    public let queued: Int
    /// Its jobs running (claimed by a worker).
    public let running: Int

    /// Creates a group state.
    public init(name: String, weight: Int, maxInFlight: Int?, queued: Int, running: Int) {
        self.name = name
        self.weight = weight
        self.maxInFlight = maxInFlight
        self.queued = queued
        self.running = running
    }
}
