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
}
