import ServiceLifecycle

/// The lease keeper as a service of the worker's group: its thread runs
/// from the group's start until the group shuts it down, which it does
/// last but one (after the claimer has drained and every held job has
/// ended or been released), so no lease lapses during the drain. Its task
/// applies what the thread found: lost jobs are abandoned, jobs cancelled
/// while running are cancelled.
extension LeaseKeeper: Service {
    func run() async {
        start()
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await finding in findings {
                    switch finding {
                    case .lost(let ids): await onLost(ids)
                    case .cancelled(let ids): await onCancelled(ids)
                    }
                }
            }
            try? await gracefulShutdown()
            await stop()
            finishFindings()
        }
    }
}
