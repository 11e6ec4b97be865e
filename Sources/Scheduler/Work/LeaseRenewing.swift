/// Renews a worker's leases from one thread, blocking it for the round
/// trip (`WorkSource.makeLeaseRenewer(timeout:)`). Not `Sendable`: the
/// thread that made it owns it.
public protocol LeaseRenewing {
    /// Extends the leases of `jobs`.
    /// - Returns: the jobs whose lease was lost, and those cancelled while they ran.
    func renew(_ jobs: [Job]) throws(SchedulerError) -> JobQueue.Renewal
}
