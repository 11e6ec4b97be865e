import ServiceLifecycle

/// The lease keeper as a service of the worker's group: its thread runs
/// from the group's start until the group shuts it down, which it does
/// last but one (after the claimer has drained and every held job has
/// ended or been released), so no lease lapses during the drain.
extension LeaseKeeper: Service {
    func run() async {
        start()
        try? await gracefulShutdown()
        await stop()
    }
}
