import Scheduler
import Synchronization

/// The jobs a worker holds, with their lease tokens, readable from any
/// thread without waiting for Swift's cooperative pool.
///
/// `RunningJobs` keeps it in step with the jobs it holds; the `LeaseKeeper`
/// thread reads it before every renewal. A lock, not an actor: a renewal
/// must not wait for a pool thread that busy jobs keep occupied.
final class HeldLeases: Sendable {
    private let jobs = Mutex<[String: Job]>([:])

    /// Records a claimed job.
    func insert(_ job: Job) {
        jobs.withLock { $0[job.id] = job }
    }

    /// Forgets jobs that ended, were released or whose lease was lost.
    func remove(_ ids: [String]) {
        jobs.withLock { jobs in
            for id in ids { jobs[id] = nil }
        }
    }

    /// The jobs held now.
    var snapshot: [Job] {
        jobs.withLock { Array($0.values) }
    }
}
