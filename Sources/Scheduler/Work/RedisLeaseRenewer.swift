import RedisKit

/// Renews leases through a connection of its own, blocking the thread
/// that owns it (`RedisWorkSource.makeLeaseRenewer(timeout:)`).
struct RedisLeaseRenewer: LeaseRenewing {
    let queue: JobQueue
    let connection: RedisConnection

    func renew(_ jobs: [Job]) throws(SchedulerError) -> JobQueue.Renewal {
        try queue.renewLeases(of: jobs, on: connection)
    }
}
