import Scheduler

/// The queue policy the settings describe.
extension ResolvedSettings {
    /// The queue configuration of a worker: its claims parse large intake
    /// documents off Redis (`IntakeParser.intakeDocuments`).
    var queueConfiguration: JobQueue.Configuration {
        var configuration = JobQueue.Configuration()
        configuration.leaseDuration = .seconds(self[Settings.leaseDuration])
        configuration.maximumStalls = self[Settings.maxStalls]
        configuration.retry.maximumAttempts = self[Settings.jobAttempts]
        configuration.retry.baseDelay = .milliseconds(Int(self[Settings.retryBackoff] * 1000))
        configuration.agingInterval = .milliseconds(Int(self[Settings.aging] * 1000))
        configuration.groupBurst = self[Settings.groupBurst]
        configuration.retention = .seconds(self[Settings.retention])
        configuration.recentCapacity = self[Settings.recentCapacity]
        configuration.intakeParser = .intakeDocuments()
        return configuration
    }
}
