import ArgumentParser
import Scheduler

/// `enqueue --priority`, `priority PRIORITY`.
extension JobPriority: ExpressibleByArgument {}

/// `enqueue --destination`.
extension JobDestination: ExpressibleByArgument {}
