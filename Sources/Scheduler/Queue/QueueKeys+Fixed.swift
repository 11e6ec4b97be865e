extension QueueKeys {
    /// A key every queue has once (not one per job, batch or worker), by the
    /// name the Lua scripts use for it: a script lists the ones it touches
    /// in its `-- @keys` line and reads them as `K.<name>` (see `QueueScript`).
    enum Fixed: String, CaseIterable, Sendable {
        case intake, pendingIntake, queue, delayed, leases, sequence, clock, work, events, control
        case commands, pendingCommands, applyingCommand, dead, batches, config, workers, metrics, metricsSeconds
        case rateGlobal
        case groups, fairness, groupWeights, groupLimits
        case recent

        /// What follows the queue's prefix (`warmer:{NAME}:`): the wire format's name of the key.
        var suffix: String {
            switch self {
            case .pendingIntake: "intake:pending"
            case .sequence: "seq"
            case .pendingCommands: "commands:pending"
            case .applyingCommand: "commands:applying"
            case .metricsSeconds: "metrics:seconds"
            case .rateGlobal: "rate:global"
            case .groupWeights: "groups:weights"
            case .groupLimits: "groups:limits"
            default: rawValue
            }
        }
    }
}
