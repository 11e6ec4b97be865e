import Scheduler

/// The control stream and the control documents of the in-memory queue.
extension InMemoryWorkSource {
    /// Sends a control message (a cancellation, a priority change) to the
    /// workers reading the control stream.
    public func send(_ message: ControlStream.Message) {
        state.withLock { $0.controlMessages.append(message) }
        controlWaiters.wakeAll()
    }

    /// Pushes a control document, as the steps applying it reports (the
    /// last one `.applied` or `.deadLettered`), and wakes the worker
    /// waiting for one.
    public func push(_ steps: [ControlDocumentStep]) {
        state.withLock { $0.controlSteps += steps }
        documentWaiters.wakeAll()
    }

    /// The steps pushed and not applied yet.
    public var pendingControlSteps: [ControlDocumentStep] { state.withLock { $0.controlSteps } }

    /// See `WorkSource`: the number of messages sent so far.
    ///
    /// The answer is as of the end of a round trip, which the fake stands
    /// for with a few turns of the executor: what else the worker does in
    /// the meantime (a claim) comes first.
    public func latestControlPosition() async throws(SchedulerError) -> String {
        for _ in 0..<200 { await Task.yield() }
        return state.withLock { state in
            controlPositionReads.record(claims.calls.count)
            return String(state.controlMessages.count)
        }
    }

    /// See `WorkSource`.
    public func controlMessages(after position: String, timeout: Duration)
        async throws(SchedulerError) -> (messages: [ControlStream.Message], next: String)
    {
        let start = Int(position) ?? 0
        _ = await controlWaiters.wait(timeout: timeout) { state.withLock { $0.controlMessages.count > start } }
        return state.withLock { state in
            (Array(state.controlMessages.dropFirst(start)), String(max(start, state.controlMessages.count)))
        }
    }

    /// See `WorkSource`.
    public func applyControlDocumentStep() async throws(SchedulerError) -> ControlDocumentStep {
        let step = state.withLock { state in state.controlSteps.isEmpty ? nil : state.controlSteps.removeFirst() }
        guard let step else { return .idle }
        appliedSteps.record(step)
        return step
    }

    /// See `WorkSource`.
    public func waitForControlDocument(timeout: Duration) async throws(SchedulerError) -> Bool {
        await documentWaiters.wait(timeout: timeout) { state.withLock { !$0.controlSteps.isEmpty } }
    }
}
