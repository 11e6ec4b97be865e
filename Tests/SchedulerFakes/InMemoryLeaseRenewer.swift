import Scheduler

/// The lease renewer of an `InMemoryWorkSource`: each renewal is logged
/// (`renewals`) and reports the jobs the test chose as lost or cancelled.
struct InMemoryLeaseRenewer: LeaseRenewing {
    let source: InMemoryWorkSource

    func renew(_ jobs: [Job]) throws(SchedulerError) -> JobQueue.Renewal {
        source.renew(jobs)
    }
}
