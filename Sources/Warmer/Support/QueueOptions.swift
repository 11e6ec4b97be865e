import ArgumentParser

/// The queue policy a worker applies: leases, stalls, retries, aging, group burst, retention, recently warmed work.
struct QueueOptions: SettingFlags {
    @Option(name: Settings.leaseDuration.info.argumentName, help: Settings.leaseDuration.info.argumentHelp)
    var leaseDuration: String?

    @Option(name: Settings.maxStalls.info.argumentName, help: Settings.maxStalls.info.argumentHelp)
    var maxStalls: String?

    @Option(name: Settings.jobAttempts.info.argumentName, help: Settings.jobAttempts.info.argumentHelp)
    var jobAttempts: String?

    @Option(name: Settings.retryBackoff.info.argumentName, help: Settings.retryBackoff.info.argumentHelp)
    var retryBackoff: String?

    @Option(name: Settings.aging.info.argumentName, help: Settings.aging.info.argumentHelp)
    var aging: String?

    @Option(name: Settings.groupBurst.info.argumentName, help: Settings.groupBurst.info.argumentHelp)
    var groupBurst: String?

    @Option(name: Settings.retention.info.argumentName, help: Settings.retention.info.argumentHelp)
    var retention: String?

    @Option(name: Settings.recentCapacity.info.argumentName, help: Settings.recentCapacity.info.argumentHelp)
    var recentCapacity: String?

    var givenFlags: GivenFlags {
        GivenFlags()
            .with(Settings.leaseDuration, leaseDuration)
            .with(Settings.maxStalls, maxStalls)
            .with(Settings.jobAttempts, jobAttempts)
            .with(Settings.retryBackoff, retryBackoff)
            .with(Settings.aging, aging)
            .with(Settings.groupBurst, groupBurst)
            .with(Settings.retention, retention)
            .with(Settings.recentCapacity, recentCapacity)
    }
}
