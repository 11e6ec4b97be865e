import Foundation

/// The changes `DataCache` has accepted but not yet applied on disk.
///
/// Reads consult it before the disk, so a store, a removal or a `removeAll`
/// is visible at once. Each change carries a generation number; once the I/O
/// queue has applied a change it is unstaged only if no newer change for the
/// same file replaced it meanwhile.
struct DataCacheStaging: Sendable {
    /// A change to one entry's file.
    enum Change: Sendable {
        /// The file is being written with this data.
        case add(Data, generation: UInt64)
        /// The file is being removed.
        case remove(generation: UInt64)

        /// The change's generation number.
        var generation: UInt64 {
            switch self {
            case .add(_, let generation), .remove(let generation): generation
            }
        }
    }

    /// Pending changes by file name.
    private var changes: [String: Change] = [:]
    /// The generation of a `removeAll` not yet applied, if any: until it is,
    /// every file without a newer change reads as removed.
    private var pendingRemoveAll: UInt64?

    /// An empty staging area.
    init() {}

    /// The pending change for `filename`, or `nil` when its file on disk is current.
    func change(for filename: String) -> Change? {
        changes[filename] ?? pendingRemoveAll.map { .remove(generation: $0) }
    }

    /// Records `change` for `filename`, replacing any earlier change.
    mutating func stage(_ change: Change, for filename: String) {
        changes[filename] = change
    }

    /// Forgets the change for `filename` if it is still the one of `generation`.
    mutating func unstage(_ filename: String, ifGeneration generation: UInt64) {
        if changes[filename]?.generation == generation { changes[filename] = nil }
    }

    /// Records a `removeAll`: earlier changes are dropped (the I/O queue applies
    /// them before the removal anyway) and every file reads as removed.
    mutating func stageRemoveAll(generation: UInt64) {
        changes.removeAll()
        pendingRemoveAll = generation
    }

    /// Forgets the `removeAll` of `generation` once applied, unless a newer one replaced it.
    mutating func unstageRemoveAll(ifGeneration generation: UInt64) {
        if pendingRemoveAll == generation { pendingRemoveAll = nil }
    }
}
