import DequeModule

/// The waiting operations of a `WorkQueue`: one FIFO per priority, served
/// highest priority first, first in first out within a priority.
///
/// ## Lazy removal
/// A cancelled item, or the old place of a reprioritised item, is not
/// searched for and removed (that would be O(n) per call). Its entry stays
/// in its FIFO as a *stale* entry: the item's state is no longer `waiting`,
/// or its ticket no longer matches the entry's (each move gives the item a
/// new ticket). Stale entries are skipped and dropped when they reach the
/// front (`popFirst`). So that a queue that is suspended, or full, while
/// callers cancel and reprioritise does not grow without bound, the FIFOs
/// are compacted (O(n)) once stale entries outnumber live ones and a small
/// floor: each compaction is paid for by as many earlier cancels or moves,
/// so every operation stays O(1) amortised.
///
/// A value type protected by its `WorkQueue`'s lock. It reads an item's
/// fields through the item's own lock, which is always taken second.
struct WaitingList {
    /// One place in a FIFO. The entry is live while `item` is waiting and
    /// still has this `ticket`.
    struct Entry: Sendable {
        /// The waiting item.
        let item: WorkItem
        /// The item's ticket when this entry was added.
        let ticket: UInt32
    }

    /// The fewest stale entries worth a compaction.
    private static let compactionFloor = 256

    /// One FIFO per priority, indexed by `ImagePriority.rawValue`.
    private var fifos = [Deque<Entry>](repeating: Deque(), count: ImagePriority.allCases.count)
    /// Entries in all FIFOs, live and stale.
    private var entryCount = 0
    /// Items waiting: live entries.
    private(set) var liveCount = 0

    /// Entries that no longer stand for a waiting item.
    var staleCount: Int { entryCount - liveCount }

    /// Adds a newly waiting item at the back of `priority`'s FIFO.
    mutating func append(_ item: WorkItem, ticket: UInt32, priority: ImagePriority) {
        fifos[priority.rawValue].append(Entry(item: item, ticket: ticket))
        entryCount += 1
        liveCount += 1
    }

    /// Adds a waiting item again at the back of `priority`'s FIFO, after it
    /// took `ticket`: its previous entry has become stale.
    mutating func move(_ item: WorkItem, ticket: UInt32, to priority: ImagePriority) {
        fifos[priority.rawValue].append(Entry(item: item, ticket: ticket))
        entryCount += 1
        compactIfNeeded()
    }

    /// Records that a waiting item left without starting (it was
    /// cancelled): its entry has become stale.
    mutating func remove() {
        liveCount -= 1
        compactIfNeeded()
    }

    /// Pops entries from the front of the highest non-empty FIFO, in order,
    /// until `claim` accepts one (returns non-nil, which the caller must do
    /// exactly for live entries, making them stale in the same step); stale
    /// entries are dropped on the way. Returns what `claim` returned, or
    /// `nil` when no item is waiting.
    mutating func popFirst<Claimed>(_ claim: (Entry) -> Claimed?) -> Claimed? {
        guard liveCount > 0 else { return nil }
        for index in fifos.indices.reversed() {
            while let entry = fifos[index].popFirst() {
                entryCount -= 1
                if let claimed = claim(entry) {
                    liveCount -= 1
                    return claimed
                }
            }
        }
        return nil
    }

    /// Drops every stale entry when they outnumber the live ones and the
    /// floor: O(n), amortised over the cancels and moves that made them.
    private mutating func compactIfNeeded() {
        let stale = staleCount
        guard stale >= Self.compactionFloor, stale > liveCount else { return }
        for index in fifos.indices {
            fifos[index].removeAll { !$0.item.isWaiting(ticket: $0.ticket) }
        }
        entryCount = fifos.reduce(0) { $0 + $1.count }
        assert(entryCount == liveCount, "a live entry was dropped or a stale one kept")
    }
}
