import Dispatch
import Synchronization

/// The queues that apply a data cache's staged changes to the disk.
///
/// One serial queue per shard: the changes of one entry (its data, metadata
/// and partial download share a shard) stay in the order they were staged,
/// while different entries are written in parallel — creating a file is
/// mostly the file system allocating an inode, and one queue made that the
/// bottleneck of a busy worker. Work on the whole folder (removing every
/// entry, a sweep) runs as a barrier: once every queue has reached it, with
/// all of them waiting.
final class DataCacheIO: Sendable {
    private let queues: [DispatchQueue]
    /// Held while a barrier is enqueued on every queue, so that all queues
    /// meet concurrent barriers in the same order (otherwise two barriers
    /// could each hold a queue the other waits for).
    private let barrierOrder = Mutex(())

    /// - Parameter shards: serial queues; at least 1.
    init(label: String, shards: Int) {
        queues = (0..<max(1, shards)).map { DispatchQueue(label: "\(label).\($0)", qos: .utility) }
    }

    /// The queue of the entry `filename` belongs to (by the first character
    /// of its hash, shared by the entry's companion files).
    private func queue(for filename: String) -> DispatchQueue {
        queues[Int(filename.utf8.first ?? 0) % queues.count]
    }

    /// Runs `work` on `filename`'s queue, after the work queued there before.
    func async(for filename: String, _ work: @escaping @Sendable () -> Void) {
        queue(for: filename).async(execute: work)
    }

    /// Runs `work` once every queue has finished what was queued on it
    /// before, and before anything queued after.
    func barrier(_ work: @escaping @Sendable () -> Void) {
        barrierOrder.withLock { _ in
            let arrived = DispatchGroup()
            let released = DispatchSemaphore(value: 0)
            let others = queues.count - 1
            for _ in queues { arrived.enter() }
            for (index, queue) in queues.enumerated() {
                queue.async {
                    arrived.leave()
                    guard index == 0 else { return released.wait() }
                    arrived.wait()
                    work()
                    for _ in 0..<others { released.signal() }
                }
            }
        }
    }

    /// Runs `work` as a barrier and waits for it.
    func barrierSync(_ work: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        barrier {
            work()
            done.signal()
        }
        done.wait()
    }

    /// Blocks until everything queued so far has run.
    func flush() {
        for queue in queues { queue.sync {} }
    }

    /// Starts nothing new until `resume()` (a test hook).
    func suspend() {
        for queue in queues { queue.suspend() }
    }

    /// Undoes `suspend()`.
    func resume() {
        for queue in queues { queue.resume() }
    }
}
