import RedisKit

extension JobQueue {
    /// The heaviest weight a group may carry.
    public static let maxGroupWeight = 1_000

    /// Sets group `name`'s weight and its fleet-wide limit of jobs in
    /// flight (docs/wire-format.md, "The order jobs are handed out").
    ///
    /// A group of weight `w` gets `w` claims for each claim of a weight-1
    /// group of the same priority while both have jobs queued. A group with
    /// `maxInFlight` of its jobs running is skipped until one of them ends.
    /// The change applies to the next claim.
    /// - Parameters:
    ///   - name: a batch id (every batch is a group of its own unless its
    ///     producer named one) or a producer's `group`.
    ///   - weight: 1…`maxGroupWeight`; `nil` for 1.
    ///   - maxInFlight: 0 or more (0 holds the group's jobs back); `nil` for no limit.
    /// - Throws: `SchedulerError.invalidGroup` for a name, weight or limit out of range.
    public func setGroup(_ name: String, weight: Int? = nil, maxInFlight: Int? = nil) async throws(SchedulerError) {
        guard Self.isValidBatchID(name), (weight.map { (1...Self.maxGroupWeight).contains($0) } ?? true),
              (maxInFlight.map { $0 >= 0 } ?? true) else { throw .invalidGroup(name) }
        _ = try await run(QueueScripts.group, [name, weight.map(String.init) ?? "", maxInFlight.map(String.init) ?? ""])
    }

    /// Group `name`'s settings and its jobs queued and running. A group
    /// never set and with no job reads as weight 1, no limit, nothing queued.
    /// - Throws: `SchedulerError.invalidGroup` for a name out of range.
    public func group(_ name: String) async throws(SchedulerError) -> GroupState {
        guard Self.isValidBatchID(name) else { throw .invalidGroup(name) }
        let weight = try await send(["HGET", keys.groupWeights, name]).string.flatMap { Int($0) } ?? 1
        let limit = try await send(["HGET", keys.groupLimits, name]).string.flatMap { Int($0) }
        let queued = try await send(["ZCARD", keys.groupQueue(name)]).integer ?? 0
        let running = try await send(["HGET", keys.group(name), "active"]).string.flatMap { Int($0) } ?? 0
        return GroupState(name: name, weight: weight, maxInFlight: limit, queued: queued, running: max(0, running))
    }
}
