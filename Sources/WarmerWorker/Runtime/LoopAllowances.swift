/// How long each of the worker's loops may go without turning before it
/// counts as stuck: `/healthz` answers 503 and the systemd watchdog gets no
/// keep-alive.
struct LoopAllowances: Sendable {
    /// The claim loop waits at most its idle wait (1 s) for work, or a Redis
    /// backoff of at most 5 s; waiting for a free slot counts as turning.
    var claims: Duration = .seconds(30)
    /// The lease keeper turns four times per lease, failures included.
    var leases: Duration
    /// The control reader blocks at most its idle wait (1 s) per read, or a backoff.
    var control: Duration = .seconds(30)
    /// The control-document applier blocks at most its idle wait (1 s) per
    /// wait; a step holds Redis for milliseconds; or a backoff.
    var commands: Duration = .seconds(30)

    /// The allowance of `loop`.
    func limit(for loop: WorkerState.Loop) -> Duration {
        switch loop {
        case .claims: claims
        case .leases: leases
        case .control: control
        case .commands: commands
        }
    }

    /// The loops that have not turned within their allowance, by name.
    func stuckLoops(in state: WorkerState) -> [String] {
        state.loopAges().filter { $0.value > limit(for: $0.key) }.map(\.key.rawValue).sorted()
    }
}
