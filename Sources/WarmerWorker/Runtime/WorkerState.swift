import Synchronization

/// What a worker's services share about its condition: whether it drains,
/// whether its cache folder takes writes, and when each of its loops last
/// turned. The HTTP probes read it (`/healthz`, `/readyz`); the claim loop
/// and the job runner write it.
///
/// Every member is safe to use from any thread, including the lease
/// keeper's, and cheap enough for the claim loop's hot path.
final class WorkerState: Sendable {
    /// A loop whose turning `/healthz` watches.
    enum Loop: String, CaseIterable, Sendable {
        /// The claim loop (`JobClaimer`).
        case claims
        /// The lease keeper's thread (`LeaseKeeper`).
        case leases
        /// The control-stream reader (`ControlReader`).
        case control
        /// The control-document applier (`ControlDocumentApplier`).
        case commands
    }

    private struct State {
        var isDraining = false
        var drainStartedAt: ContinuousClock.Instant?
        var cacheProblem: String?
        var turns: [Loop: ContinuousClock.Instant] = [:]
        var parked: Set<Loop> = []
    }

    private let state: Mutex<State>

    init() {
        let now = ContinuousClock.now
        state = Mutex(State(turns: Dictionary(uniqueKeysWithValues: Loop.allCases.map { ($0, now) })))
    }

    // MARK: Draining

    /// Whether a stop was requested: claim nothing more.
    var isDraining: Bool { state.withLock { $0.isDraining } }

    /// When the drain began (the first stop signal); `nil` while running.
    var drainStartedAt: ContinuousClock.Instant? { state.withLock { $0.drainStartedAt } }

    /// Marks the worker as draining since `now` (the first stop signal, on
    /// the worker's clock); later calls change nothing.
    func startDraining(at now: ContinuousClock.Instant) {
        state.withLock { state in
            guard !state.isDraining else { return }
            state.isDraining = true
            state.drainStartedAt = now
        }
    }

    // MARK: The cache folder

    /// Why the cache folder takes no writes now, or `nil` when it does.
    var cacheProblem: String? { state.withLock { $0.cacheProblem } }

    /// Records whether the cache folder takes writes; returns whether this changed it.
    @discardableResult
    func setCacheProblem(_ problem: String?) -> Bool {
        state.withLock { state in
            defer { state.cacheProblem = problem }
            return (state.cacheProblem == nil) != (problem == nil)
        }
    }

    // MARK: Loops

    /// Records that `loop` turned now.
    func recordTurn(of loop: Loop) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.turns[loop] = now
            state.parked.remove(loop)
        }
    }

    /// Records that `loop` waits for something it cannot hurry (every slot
    /// busy): it counts as turning until its next `recordTurn`.
    func recordParked(_ loop: Loop) {
        state.withLock { _ = $0.parked.insert(loop) }
    }

    /// How long ago each loop last turned (zero for a parked loop).
    func loopAges() -> [Loop: Duration] {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.turns.reduce(into: [:]) { ages, entry in
                ages[entry.key] = state.parked.contains(entry.key) ? .zero : now - entry.value
            }
        }
    }
}
