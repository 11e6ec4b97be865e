import Scheduler

/// What `warmer watch`'s board shows at one moment: the queue's totals
/// (when read) and the batches followed, oldest first.
struct BoardModel: Sendable, Hashable {
    var statistics: QueueStatistics?
    var batches: [BatchProgress]
}
